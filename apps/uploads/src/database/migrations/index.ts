import { Init1795310371741 } from './1795310371741-Init';

/** Committed migrations, in order; run at start by the service. */
export const UPLOADS_MIGRATIONS = [Init1795310371741];

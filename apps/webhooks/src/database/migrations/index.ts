import { Init1795310381187 } from './1795310381187-Init';

/** Committed migrations, in order; run at start by the service. */
export const WEBHOOKS_MIGRATIONS = [Init1795310381187];

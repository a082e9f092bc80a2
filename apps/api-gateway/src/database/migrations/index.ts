import { Init1795310269913 } from './1795310269913-Init';

/** Committed migrations, in order; run at start by the service. */
export const GATEWAY_MIGRATIONS = [Init1795310269913];

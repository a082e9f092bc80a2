import { Init1795310383585 } from './1795310383585-Init';

/** Committed migrations, in order; run at start by the service. */
export const RETENTION_MIGRATIONS = [Init1795310383585];

import { Init1795310383585 } from './1795310383585-Init';
import { OrderExpiry1795312955260 } from './1795312955260-OrderExpiry';

/** Committed migrations, in order; run at start by the service. */
export const RETENTION_MIGRATIONS = [Init1795310383585, OrderExpiry1795312955260];

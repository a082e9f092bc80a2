import { Init1795310292846 } from './1795310292846-Init';

/** Committed migrations, in order; run at start by the service. */
export const ORDERS_MIGRATIONS = [Init1795310292846];

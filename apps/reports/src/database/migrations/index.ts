import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310378816 } from './1795310378816-Init';
import { Reports1795312572923 } from './1795312572923-Reports';
import { ExpiredOrders1795313340263 } from './1795313340263-ExpiredOrders';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const REPORTS_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310378816, Reports1795312572923, ExpiredOrders1795313340263];

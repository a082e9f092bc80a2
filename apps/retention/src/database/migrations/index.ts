import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310383585 } from './1795310383585-Init';
import { OrderExpiry1795312955260 } from './1795312955260-OrderExpiry';
import { SweepLease1796200000000 } from './1796200000000-SweepLease';
import { ScheduleReconciliation1797300000001 } from './1797300000001-ScheduleReconciliation';
import { FailedOrderPurge1797400000000 } from './1797400000000-FailedOrderPurge';
import { FailedOrderReconciliation1797500000000 } from './1797500000000-FailedOrderReconciliation';
import { ErasedPrefix1797600000000 } from './1797600000000-ErasedPrefix';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const RETENTION_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310383585, OrderExpiry1795312955260, SweepLease1796200000000, ScheduleReconciliation1797300000001, FailedOrderPurge1797400000000, FailedOrderReconciliation1797500000000, ErasedPrefix1797600000000];

import { ErasedPrefixEntity } from '../erasure/erased-prefix.entity';
import { FailedOrderReconciliationEntity } from '../schedule/failed-order-reconciliation.entity';
import { OrderExpiryEntity } from '../schedule/order-expiry.entity';
import { ScheduleReconciliationEntity } from '../schedule/schedule-reconciliation.entity';

export const RETENTION_SCHEMA = 'retention';
export const RETENTION_ENTITIES = [OrderExpiryEntity, ScheduleReconciliationEntity, FailedOrderReconciliationEntity, ErasedPrefixEntity];

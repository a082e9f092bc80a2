import { OrderExpiryEntity } from '../schedule/order-expiry.entity';

export const RETENTION_SCHEMA = 'retention';
export const RETENTION_ENTITIES = [OrderExpiryEntity];

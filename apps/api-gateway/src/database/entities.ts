import { GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { RateLimitWindowEntity } from '../rate-limit/rate-limit-window.entity';

export const GATEWAY_SCHEMA = 'gateway';
export const GATEWAY_ENTITIES = [...GATEWAY_DATA_ENTITIES, RateLimitWindowEntity];

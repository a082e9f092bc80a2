import { GATEWAY_DATA_ENTITIES } from '@cp/gateway-data-access';
import { RateLimitGrantEntity } from '../rate-limit/rate-limit-grant.entity';

export const GATEWAY_SCHEMA = 'gateway';
export const GATEWAY_ENTITIES = [...GATEWAY_DATA_ENTITIES, RateLimitGrantEntity];

import { ErasedScopeEntity } from '@cp/database';
import { IssuanceEntity } from '../issuance/issuance.entity';

export const WATERMARK_SCHEMA = 'watermark';
export const WATERMARK_ENTITIES = [IssuanceEntity, ErasedScopeEntity];

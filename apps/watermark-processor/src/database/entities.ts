import { ErasedScopeEntity } from '../issuance/erased-scope.entity';
import { IssuanceEntity } from '../issuance/issuance.entity';

export const WATERMARK_SCHEMA = 'watermark';
export const WATERMARK_ENTITIES = [IssuanceEntity, ErasedScopeEntity];

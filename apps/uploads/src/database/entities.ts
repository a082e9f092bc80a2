import { UploadSlotEntity } from '../slots/upload-slot.entity';

export const UPLOADS_SCHEMA = 'uploads';
export const UPLOADS_ENTITIES = [UploadSlotEntity];

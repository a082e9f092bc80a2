import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310371741 } from './1795310371741-Init';
import { UploadSlots1795311255570 } from './1795311255570-UploadSlots';
import { UploadSlotTraceparent1796200000001 } from './1796200000001-UploadSlotTraceparent';
import { UploadSlotOrderType1797100000001 } from './1797100000001-UploadSlotOrderType';
import { UploadSlotReconcileIndex1797800000001 } from './1797800000001-UploadSlotReconcileIndex';
import { UploadSlotOrderIndex1797900000001 } from './1797900000001-UploadSlotOrderIndex';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const UPLOADS_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310371741, UploadSlots1795311255570, UploadSlotTraceparent1796200000001, UploadSlotOrderType1797100000001, UploadSlotReconcileIndex1797800000001, UploadSlotOrderIndex1797900000001];

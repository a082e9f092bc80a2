import { ERASED_SCOPE_MIGRATIONS } from '@cp/database';
import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310374067 } from './1795310374067-Init';
import { Issuance1795311299226 } from './1795311299226-Issuance';
import { IssuanceOriginal1795900000000 } from './1795900000000-IssuanceOriginal';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const WATERMARK_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310374067, Issuance1795311299226, IssuanceOriginal1795900000000, ...ERASED_SCOPE_MIGRATIONS];

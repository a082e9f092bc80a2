import { Init1795310374067 } from './1795310374067-Init';

/** Committed migrations, in order; run at start by the service. */
export const WATERMARK_MIGRATIONS = [Init1795310374067];

import { Init1795310376377 } from './1795310376377-Init';

/** Committed migrations, in order; run at start by the service. */
export const AIDETECT_MIGRATIONS = [Init1795310376377];

import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310376377 } from './1795310376377-Init';
import { DetectionRuns1795467059117 } from './1795467059117-DetectionRuns';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const AIDETECT_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310376377, DetectionRuns1795467059117];

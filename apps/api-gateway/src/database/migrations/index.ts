import { MESSAGING_MIGRATIONS } from '@cp/messaging';
import { Init1795310269913 } from './1795310269913-Init';
import { SlidingRateLimit1795465013470 } from './1795465013470-SlidingRateLimit';
import { RateLimitSpentBy1795900000000 } from './1795900000000-RateLimitSpentBy';

/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */
export const GATEWAY_MIGRATIONS = [...MESSAGING_MIGRATIONS, Init1795310269913, SlidingRateLimit1795465013470, RateLimitSpentBy1795900000000];

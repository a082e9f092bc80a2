import type { KeyMode } from '@cp/contracts';

/**
 * Key modes and webhooks (docs/webhooks.md, "Live and test webhooks"). A webhook belongs to the mode of the key
 * that created it, so a test key, often handed to a contractor or a CI job, can neither read nor redirect the
 * account's live deliveries (live order ids, fresh result URLs, watermark texts).
 */

/** Which deliveries of a webhook a caller may list and resend. */
export type DeliveryScope = 'all' | 'testEvents';

/** The account and key mode a webhook is read through: a webhook of the other mode answers like an unknown id. */
export interface WebhookOwner {
  accountId: string;
  mode: KeyMode;
}

/**
 * Whether a webhook of `webhookMode` gets an event. Live webhooks get every event of the account, test orders'
 * included (`data.testMode: true`), as they always have, so a receiver registered with a live key keeps working
 * against the sandbox; test webhooks get only test orders' events, never a live one.
 * `WebhookDeliveriesRepository.claimDue` repeats this rule in SQL as a last guard.
 */
export function webhookReceives(webhookMode: KeyMode, testEvent: boolean): boolean {
  return webhookMode === 'live' || testEvent;
}

/**
 * What a caller may see and resend among a (same-mode) webhook's deliveries. A test key is held to test events
 * even on its own webhook, so that no row, however it got there, lets it resend a live payload.
 */
export function deliveryScopeOf(callerMode: KeyMode): DeliveryScope {
  return callerMode === 'test' ? 'testEvents' : 'all';
}

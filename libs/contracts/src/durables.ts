/**
 * Every durable consumer name of the services, declared once. The names are the JetStream consumers' identities
 * (renaming one makes a new consumer that starts from the stream's current position), and an operator addresses
 * a consumer by its name: its deadline with `JOB_DEADLINE_MS_<DURABLE>`, its parked messages on `parked.<durable>`.
 * A service's environment is checked against the whole list at start (the Helm chart may give every service the
 * same variables), so a misspelt variable stops the service instead of being ignored. A spec checks that every
 * consumer registered in apps/ uses a name from this list, and that every name here is registered.
 */
export const DURABLES = [
  'aidetect-detect',
  'orders-account-created',
  'orders-account-erasure',
  'orders-ai-detection-completed',
  'orders-ai-detection-failed',
  'orders-anti-ai-output-completed',
  'orders-anti-ai-output-failed',
  'orders-credits-granted',
  'orders-extract-completed',
  'orders-file-failed',
  'orders-file-uploaded',
  'orders-order-delayed',
  'orders-output-completed',
  'orders-output-delayed',
  'orders-output-failed',
  'orders-output-processing',
  'orders-package-completed',
  'orders-report-status',
  'orders-test-order-retention-ended',
  'reports-account-erasure',
  'reports-generate',
  'reports-order-erasure',
  'reports-order-expired',
  'retention-account-erasure',
  'retention-order-erasure',
  'retention-order-status',
  'uploads-account-erasure',
  'uploads-fetch-source',
  'uploads-order-erasure',
  'uploads-order-expired',
  'uploads-order-failed',
  'uploads-storage-events',
  'uploads-test-order-retention-ended',
  'watermark-account-erasure',
  'watermark-anti-ai',
  'watermark-embed',
  'watermark-extract',
  'watermark-order-erasure',
  'watermark-package',
  'webhooks-account-created',
  'webhooks-account-erasure',
  'webhooks-order-completed',
  'webhooks-order-erasure',
  'webhooks-order-expired',
  'webhooks-order-failed',
  'webhooks-test-order-retention-ended',
] as const;

export type Durable = (typeof DURABLES)[number];

/** The family of per-consumer deadline overrides: `JOB_DEADLINE_MS_<DURABLE>`. */
export const JOB_DEADLINE_VARIABLE_PREFIX = 'JOB_DEADLINE_MS_';
/** Bounds of a `JOB_DEADLINE_MS_<DURABLE>` value, in milliseconds: a second to a day. */
export const JOB_DEADLINE_MIN_MS = 1000;
export const JOB_DEADLINE_MAX_MS = 24 * 3600_000;

/** `JOB_DEADLINE_MS_<DURABLE>`: the durable upper-cased, every character other than a letter or digit an underscore. */
export function deadlineVariableOf(durable: string): string {
  return `${JOB_DEADLINE_VARIABLE_PREFIX}${durable.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * A `JOB_DEADLINE_MS_<DURABLE>` value as milliseconds, or null when it is not a whole number within the bounds
 * (surrounding blanks allowed). One parser for the start-up check (`loadServiceConfig` of `@cp/runtime`) and the consumer (`@cp/messaging`).
 */
export function parseJobDeadlineMs(raw: string): number | null {
  const text = raw.trim();
  if (!/^[0-9]{1,9}$/.test(text)) {
    return null;
  }
  const value = Number(text);
  return value >= JOB_DEADLINE_MIN_MS && value <= JOB_DEADLINE_MAX_MS ? value : null;
}

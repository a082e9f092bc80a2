const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Spec 6.3: after the first attempt fails, immediate retries after 1, 2 and 4 s, then scheduled retries
 * after 30 min, 2 h and 4 h; each delay counts from the end of the attempt before it.
 */
export const RETRY_DELAYS_MS: readonly number[] = [1 * SECOND, 2 * SECOND, 4 * SECOND, 30 * MINUTE, 2 * HOUR, 4 * HOUR];

/** Attempts of one round: the first one plus every retry. */
export const MAX_ATTEMPTS_PER_ROUND = RETRY_DELAYS_MS.length + 1;

/** Attempts that make up the "initial delivery": the first one and the three immediate retries. */
export const INITIAL_DELIVERY_ATTEMPTS = 4;

/** Delay before the next attempt after `attemptsSoFar` failed attempts of the round, or null when none is left. */
export function nextRetryDelayMs(attemptsSoFar: number): number | null {
  if (!Number.isInteger(attemptsSoFar) || attemptsSoFar < 1) {
    throw new RangeError(`attemptsSoFar must be a positive integer, got ${attemptsSoFar}`);
  }
  return RETRY_DELAYS_MS[attemptsSoFar - 1] ?? null;
}

/** True when the failed attempt was the last of the initial (immediate) phase: time to tell the owner. */
export function initialDeliveryJustFailed(attemptsSoFar: number): boolean {
  return attemptsSoFar === INITIAL_DELIVERY_ATTEMPTS;
}

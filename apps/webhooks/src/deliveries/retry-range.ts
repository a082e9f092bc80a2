const DAY_MS = 24 * 60 * 60 * 1000;

/** Spec 4.16 / 8: the bulk retry covers at most 7 days. */
export const MAX_RETRY_RANGE_MS = 7 * DAY_MS;

export interface RetryRange {
  from: Date;
  /** Inclusive end. */
  to: Date;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function parse(value: string, endOfDay: boolean): Date | null {
  if (DATE_ONLY.test(value)) {
    const start = new Date(`${value}T00:00:00.000Z`);
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== value) {
      return null;
    }
    // A date-only `toDate` includes that whole (UTC) day.
    return endOfDay ? new Date(start.getTime() + DAY_MS - 1) : start;
  }
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

/**
 * `fromDate`/`toDate` as given to retry-failed: dates (UTC days, `toDate` inclusive) or date-times. Null when
 * either is invalid, the range is reversed, or it is longer than 7 days.
 */
export function parseRetryRange(fromDate: string, toDate: string): RetryRange | null {
  const from = parse(fromDate, false);
  const to = parse(toDate, true);
  if (!from || !to || to.getTime() < from.getTime()) {
    return null;
  }
  if (to.getTime() - from.getTime() > MAX_RETRY_RANGE_MS) {
    return null;
  }
  return { from, to };
}

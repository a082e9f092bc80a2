import { parseRetryRange } from './retry-range';

describe('bulk retry range', () => {
  it('accepts seven whole days given as dates, toDate inclusive', () => {
    const range = parseRetryRange('2026-03-01', '2026-03-07');
    expect(range?.from.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(range?.to.toISOString()).toBe('2026-03-07T23:59:59.999Z');
  });

  it('refuses eight days', () => {
    expect(parseRetryRange('2026-03-01', '2026-03-08')).toBeNull();
  });

  it('accepts exactly 7 × 24 hours of date-times and refuses one millisecond more', () => {
    expect(parseRetryRange('2026-03-01T10:00:00Z', '2026-03-08T10:00:00Z')).not.toBeNull();
    expect(parseRetryRange('2026-03-01T10:00:00Z', '2026-03-08T10:00:00.001Z')).toBeNull();
  });

  it('accepts one day and the same instant', () => {
    expect(parseRetryRange('2026-03-01', '2026-03-01')).not.toBeNull();
    expect(parseRetryRange('2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z')).not.toBeNull();
  });

  it('refuses a reversed range and impossible dates', () => {
    expect(parseRetryRange('2026-03-05', '2026-03-01')).toBeNull();
    expect(parseRetryRange('2026-02-30', '2026-03-01')).toBeNull();
    expect(parseRetryRange('yesterday', '2026-03-01')).toBeNull();
  });

  it('honours offsets of date-times', () => {
    const range = parseRetryRange('2026-03-01T09:00:00+09:00', '2026-03-02T00:00:00Z');
    expect(range?.from.toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });
});

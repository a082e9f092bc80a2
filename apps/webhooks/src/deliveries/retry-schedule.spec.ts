import { INITIAL_DELIVERY_ATTEMPTS, initialDeliveryJustFailed, MAX_ATTEMPTS_PER_ROUND, nextRetryDelayMs } from './retry-schedule';

describe('retry schedule', () => {
  it('retries after 1, 2 and 4 seconds, then after 30 minutes, 2 hours and 4 hours', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempts) => nextRetryDelayMs(attempts));
    expect(delays).toEqual([1000, 2000, 4000, 30 * 60_000, 2 * 3_600_000, 4 * 3_600_000]);
  });

  it('gives up after the seventh attempt', () => {
    expect(MAX_ATTEMPTS_PER_ROUND).toBe(7);
    expect(nextRetryDelayMs(7)).toBeNull();
    expect(nextRetryDelayMs(8)).toBeNull();
  });

  it('refuses a nonsensical attempt count', () => {
    expect(() => nextRetryDelayMs(0)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5)).toThrow(RangeError);
  });

  it('the initial delivery has failed once the first attempt and the three immediate retries failed', () => {
    expect(INITIAL_DELIVERY_ATTEMPTS).toBe(4);
    expect([1, 2, 3, 4, 5, 6, 7].filter(initialDeliveryJustFailed)).toEqual([4]);
  });
});

import { Logger } from '@nestjs/common';
import { drainBatches, PeriodicTask, retryDelayMs } from './periodic-task';

describe('PeriodicTask', () => {
  it('never overlaps runs, survives a failing run, and stop() waits for the run in progress', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const task = new PeriodicTask(
      'test task',
      5,
      async () => {
        runs += 1;
        active += 1;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 20));
        active -= 1;
        if (runs === 1) {
          throw new Error('first run fails');
        }
      },
      { runAtStart: true },
    );
    task.start();
    for (let waited = 0; runs < 3 && waited < 5000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await task.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(maxActive).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(active).toBe(0);
    expect(runs).toBe(after);
  });

  it('after a failed run, runs again sooner than its interval: 1 s, 2 s, 4 s … capped by the interval', () => {
    expect([1, 2, 3, 4, 9, 10, 100].map((failures) => retryDelayMs(failures, 300_000))).toEqual([1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000]);
    expect(retryDelayMs(1, 200)).toBe(200);
  });

  it('retries a run that failed (a peer still starting) within a second, not after its interval; warns, then errors once the failures last', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    let runs = 0;
    const task = new PeriodicTask(
      'reconciliation',
      60_000,
      async () => {
        runs += 1;
        if (runs <= 2) {
          throw new Error('orders.expiry-schedules is unavailable');
        }
      },
      // failures are warnings for their first 500 ms here (a minute by default): the retry 1 s later is an error
      { runAtStart: true, warnForMs: 500 },
    );
    try {
      task.start();
      for (let waited = 0; runs < 3 && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(runs).toBe(3);
      expect(warn.mock.calls.map((call: unknown[]) => call[1])).toEqual(['reconciliation failed; retrying in 1000 ms']);
      expect(error.mock.calls.map((call: unknown[]) => call[1])).toEqual(['reconciliation failed; retrying in 2000 ms']);
    } finally {
      await task.stop();
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('wake() runs at once, and once more right after a run in progress', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const task = new PeriodicTask('woken task', 60_000, async () => {
      runs += 1;
      if (runs === 1) {
        await new Promise<void>((resolve) => (release = resolve));
      }
    });
    task.start();
    expect(runs).toBe(0);
    task.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(1);
    task.wake();
    task.wake();
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(2);
    await task.stop();
    task.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(2);
  });

  it('drainBatches stops at an empty batch or when stopping', async () => {
    const sizes = [3, 2, 0, 5];
    expect(await drainBatches(async () => sizes.shift() ?? 0, () => false)).toBe(5);
    let calls = 0;
    expect(await drainBatches(async () => ++calls, () => calls >= 2)).toBe(3);
  });
});

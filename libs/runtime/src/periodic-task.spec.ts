import { drainBatches, PeriodicTask } from './periodic-task';

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
    await new Promise((resolve) => setTimeout(resolve, 120));
    await task.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(maxActive).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(active).toBe(0);
    expect(runs).toBe(after);
  });

  it('drainBatches stops at an empty batch or when stopping', async () => {
    const sizes = [3, 2, 0, 5];
    expect(await drainBatches(async () => sizes.shift() ?? 0, () => false)).toBe(5);
    let calls = 0;
    expect(await drainBatches(async () => ++calls, () => calls >= 2)).toBe(3);
  });
});

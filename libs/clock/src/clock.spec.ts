import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClock, ManualClock, OffsetFileClock, SystemClock } from './clock';

describe('clocks', () => {
  it('ManualClock moves only when told', () => {
    const clock = new ManualClock(new Date('2026-10-08T23:59:59.000Z'));
    clock.advance(1000);
    expect(clock.now().toISOString()).toBe('2026-10-09T00:00:00.000Z');
  });

  it('OffsetFileClock follows the offset written to its file', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'clock-')), 'offset');
    const clock = new OffsetFileClock(file);
    expect(Math.abs(clock.nowMs() - Date.now())).toBeLessThan(1000);
    writeFileSync(file, String(12 * 3600_000));
    expect(clock.nowMs() - Date.now()).toBeGreaterThan(12 * 3600_000 - 1000);
    writeFileSync(file, 'not a number!');
    expect(Math.abs(clock.nowMs() - Date.now())).toBeLessThan(1000);
  });

  it('createClock uses real time unless an offset file is configured', () => {
    expect(createClock(undefined)).toBeInstanceOf(SystemClock);
    expect(createClock('/tmp/x')).toBeInstanceOf(OffsetFileClock);
  });
});

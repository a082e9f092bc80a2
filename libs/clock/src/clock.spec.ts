import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
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

  it('OffsetFileClock does not keep a read of a file caught between truncation and write', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'clock-')), 'offset');
    const clock = new OffsetFileClock(file);
    const stamp = new Date('2026-11-27T12:00:00.000Z');
    writeFileSync(file, String(5 * 3600_000));
    expect(clock.nowMs() - Date.now()).toBeGreaterThan(5 * 3600_000 - 1000);
    // The writer's truncation and its write land within one tick of the file system's clock: same mtime.
    writeFileSync(file, '');
    utimesSync(file, stamp, stamp);
    expect(clock.nowMs() - Date.now()).toBeGreaterThan(5 * 3600_000 - 1000);
    writeFileSync(file, String(7 * 3600_000));
    utimesSync(file, stamp, stamp);
    expect(clock.nowMs() - Date.now()).toBeGreaterThan(7 * 3600_000 - 1000);
  });

  it('createClock uses real time unless an offset file is configured', () => {
    expect(createClock(undefined)).toBeInstanceOf(SystemClock);
    expect(createClock('/tmp/x')).toBeInstanceOf(OffsetFileClock);
  });
});

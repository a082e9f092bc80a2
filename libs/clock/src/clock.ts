import { readFileSync, statSync } from 'node:fs';

/**
 * The one source of "now" for every time-dependent rule (upload URL validity, the 12-hour window,
 * retention, v2 retirement, retry schedules), so tests move time instead of sleeping.
 */
export abstract class Clock {
  abstract now(): Date;

  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** In-process clock for unit tests. */
export class ManualClock extends Clock {
  constructor(private current: Date = new Date('2026-01-01T00:00:00.000Z')) {
    super();
  }

  now(): Date {
    return new Date(this.current.getTime());
  }

  set(date: Date): void {
    this.current = new Date(date.getTime());
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/**
 * Real time plus an offset in milliseconds read from a file, so an end-to-end test can move the time of
 * every service process at once. Only enabled when CLOCK_OFFSET_FILE is configured (never in production:
 * the configuration refuses it there).
 */
export class OffsetFileClock extends Clock {
  private cachedMtimeMs = -1;
  private offsetMs = 0;

  constructor(private readonly file: string) {
    super();
  }

  now(): Date {
    return new Date(Date.now() + this.readOffset());
  }

  private readOffset(): number {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.file).mtimeMs;
    } catch {
      return 0;
    }
    if (mtimeMs !== this.cachedMtimeMs) {
      const text = readFileSync(this.file, 'utf8').trim();
      if (text === '') {
        // A writer truncated the file and has not written yet. Its write may keep the same (coarse) mtime, so
        // caching this read would pin the offset at the wrong value: keep the last one and read again next time.
        return this.offsetMs;
      }
      const parsed = Number(text);
      this.offsetMs = Number.isFinite(parsed) ? parsed : 0;
      this.cachedMtimeMs = mtimeMs;
    }
    return this.offsetMs;
  }
}

export function createClock(offsetFile: string | undefined): Clock {
  return offsetFile ? new OffsetFileClock(offsetFile) : new SystemClock();
}

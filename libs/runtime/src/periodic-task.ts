import { Logger } from '@nestjs/common';

/**
 * The one periodic loop of the services (outbox relay, webhook dispatcher, report sweeper, schedulers):
 * runs `task` every `intervalMs` (optionally once at start), never two runs at once; `wake()` asks for a
 * run now, or right after the run in progress; a failed run is logged and tried again sooner than the
 * interval (`retryDelayMs`); `stop()` waits for the run in progress. Every replica may run the same task:
 * tasks claim their rows with SKIP LOCKED.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = true;
  private wakeRequested = false;
  private failuresInARow = 0;
  /** When the current row of failed runs began (`Date.now()`), for how long failures are only warnings. */
  private failingSince = 0;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly task: (isStopping: () => boolean) => Promise<void>,
    private readonly options: { runAtStart?: boolean; warnForMs?: number } = {},
  ) {
    this.logger = new Logger(name);
  }

  start(): void {
    this.stopping = false;
    this.schedule(this.options.runAtStart ? 0 : this.intervalMs);
  }

  /** Run now (new work arrived), or again right after the run in progress. */
  wake(): void {
    if (this.stopping) {
      return;
    }
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  private run(): void {
    if (this.running || this.stopping) {
      return;
    }
    this.running = this.task(() => this.stopping)
      .then(
        () => {
          this.failuresInARow = 0;
        },
        (error: unknown) => {
          this.failuresInARow += 1;
          if (this.failuresInARow === 1) {
            this.failingSince = Date.now();
          }
          const message = `${this.name} failed; retrying in ${this.nextDelayMs()} ms`;
          // In a cluster every service starts at once: a peer or a dependency not up yet fails a task's first runs
          // (the retention reconciliation asked orders before orders answered, logged as an error on every start).
          // Failures are warnings for their first minute; a failure that lasts is the error an operator must see.
          if (Date.now() - this.failingSince < (this.options.warnForMs ?? FAILURES_ARE_WARNINGS_FOR_MS)) {
            this.logger.warn({ err: error, failuresInARow: this.failuresInARow }, message);
          } else {
            this.logger.error({ err: error, failuresInARow: this.failuresInARow }, message);
          }
        },
      )
      .finally(() => {
        this.running = undefined;
        const again = this.wakeRequested;
        this.wakeRequested = false;
        if (!this.stopping) {
          this.schedule(again ? 0 : this.nextDelayMs());
        }
      });
  }

  /** Its interval after a run that succeeded, sooner after one that failed (`retryDelayMs`). */
  private nextDelayMs(): number {
    return this.failuresInARow > 0 ? retryDelayMs(this.failuresInARow, this.intervalMs) : this.intervalMs;
  }
}

/** How long a row of failed runs is logged as warnings before it is an error (a peer's start, a short outage). */
export const FAILURES_ARE_WARNINGS_FOR_MS = 60_000;

/**
 * When a task runs again after `failuresInARow` failed runs: 1 s, 2 s, 4 s, … and never later than its interval.
 * A task with a long interval (the retention reconciliation's 5 minutes, the sweeps' hours) whose run at start failed
 * because a peer was still starting waited the whole interval before; one whose cause persists is retried a few
 * times more, each time as a claim of rows with SKIP LOCKED, then at its interval again.
 */
export function retryDelayMs(failuresInARow: number, intervalMs: number): number {
  return Math.min(intervalMs, 1_000 * 2 ** Math.min(Math.max(failuresInARow - 1, 0), 20));
}

/** Calls `batch` until it handles nothing (or the service is stopping); returns the total handled. */
export async function drainBatches(batch: () => Promise<number>, isStopping: () => boolean): Promise<number> {
  let total = 0;
  let handled: number;
  do {
    handled = await batch();
    total += handled;
  } while (handled > 0 && !isStopping());
  return total;
}

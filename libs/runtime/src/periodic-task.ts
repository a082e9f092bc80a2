import { Logger } from '@nestjs/common';

/**
 * The one periodic loop of the services (outbox relay, webhook dispatcher, report sweeper, schedulers):
 * runs `task` every `intervalMs` (optionally once at start), never two runs at once; `wake()` asks for a
 * run now, or right after the run in progress; a failed run is logged and the next one tries again;
 * `stop()` waits for the run in progress. Every replica may run the same task: tasks claim their rows
 * with SKIP LOCKED.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = true;
  private wakeRequested = false;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly task: (isStopping: () => boolean) => Promise<void>,
    private readonly options: { runAtStart?: boolean } = {},
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
      .catch((error: unknown) => this.logger.error({ err: error }, `${this.name} failed; retrying on the next run`))
      .finally(() => {
        this.running = undefined;
        const again = this.wakeRequested;
        this.wakeRequested = false;
        if (!this.stopping) {
          this.schedule(again ? 0 : this.intervalMs);
        }
      });
  }
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

import { Logger } from '@nestjs/common';

/**
 * Runs `task` every `intervalMs` (optionally once at start), never two runs at once; a failed run is
 * logged and the next tick tries again. `stop()` waits for the run in progress. Every replica may run
 * the same task: the tasks claim their rows with SKIP LOCKED.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = false;

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
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    if (this.options.runAtStart) {
      this.tick();
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running || this.stopping) {
      return;
    }
    this.running = this.task(() => this.stopping)
      .catch((error: unknown) => this.logger.error({ err: error }, `${this.name} failed; retrying on the next tick`))
      .finally(() => (this.running = undefined));
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

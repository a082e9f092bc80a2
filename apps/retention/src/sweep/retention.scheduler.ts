import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { SweepExpiredOrdersUseCase } from './sweep-expired-orders.use-case';

/**
 * Runs the retention sweep every interval and drains all due batches. Also runs once at start, so a
 * sweep cut short by a crash finishes as soon as the service is back.
 */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
    private readonly sweepExpiredOrders: SweepExpiredOrdersUseCase,
  ) {}

  onApplicationBootstrap(): void {
    const tick = (): void => {
      if (!this.running && !this.stopping) {
        this.running = this.sweep().finally(() => (this.running = undefined));
      }
    };
    this.timer = setInterval(tick, this.config.retention.sweepIntervalMs);
    tick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async sweep(): Promise<void> {
    try {
      let handled: number;
      let total = 0;
      do {
        handled = await this.sweepExpiredOrders.execute();
        total += handled;
      } while (handled > 0 && !this.stopping);
      if (total > 0) {
        this.logger.log({ handled: total }, 'retention sweep finished');
      }
    } catch (error) {
      this.logger.error({ err: error }, 'retention sweep failed; the batch is retried on the next tick');
    }
  }
}

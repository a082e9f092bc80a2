import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { RetireV2OrdersUseCase } from './retire-v2-orders.use-case';

/**
 * Checks for pending v2 orders to retire on the upload-window sweep's interval. Before the retirement
 * time a tick costs nothing (no query); after it, one indexed query finds nothing once they are all failed.
 */
@Injectable()
export class V2RetirementScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(V2RetirementScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly retireV2Orders: RetireV2OrdersUseCase,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.running) {
        this.running = this.sweep().finally(() => (this.running = undefined));
      }
    }, this.config.uploadWindowSweepIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async sweep(): Promise<void> {
    try {
      let failed: number;
      do {
        failed = await this.retireV2Orders.execute();
        if (failed > 0) {
          this.logger.log({ failed }, 'pending v2 orders failed with WATERMARK_V2_API_SUNSET');
        }
      } while (failed > 0);
    } catch (error) {
      this.logger.error({ err: error }, 'v2 retirement sweep failed');
    }
  }
}

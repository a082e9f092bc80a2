import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { ExpireUploadWindowUseCase } from './expire-upload-window.use-case';

/** Runs the upload-window sweep periodically (every replica may run it: rows are claimed with SKIP LOCKED). */
@Injectable()
export class UploadWindowScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UploadWindowScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly expireUploadWindow: ExpireUploadWindowUseCase,
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
        failed = await this.expireUploadWindow.execute();
        if (failed > 0) {
          this.logger.log({ failed }, 'orders failed with ORDER_TIMEOUT');
        }
      } while (failed > 0);
    } catch (error) {
      this.logger.error({ err: error }, 'upload window sweep failed');
    }
  }
}

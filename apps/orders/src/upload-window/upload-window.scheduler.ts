import { drainBatches, PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { ExpireUploadWindowUseCase } from './expire-upload-window.use-case';

/** Runs the upload-window sweep periodically. */
@Injectable()
export class UploadWindowScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UploadWindowScheduler.name);
  private readonly task: PeriodicTask;

  constructor(@Inject(ORDERS_CONFIG) config: OrdersConfig, expireUploadWindow: ExpireUploadWindowUseCase) {
    this.task = new PeriodicTask('upload-window sweep', config.uploadWindowSweepIntervalMs, async (isStopping) => {
      const failed = await drainBatches(() => expireUploadWindow.execute(), isStopping);
      if (failed > 0) {
        this.logger.log({ failed }, 'orders failed with ORDER_TIMEOUT');
      }
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}

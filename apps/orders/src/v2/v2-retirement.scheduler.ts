import { drainBatches, PeriodicTask } from '@cp/runtime';
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
  private readonly task: PeriodicTask;

  constructor(@Inject(ORDERS_CONFIG) config: OrdersConfig, retireV2Orders: RetireV2OrdersUseCase) {
    this.task = new PeriodicTask('v2 retirement sweep', config.uploadWindowSweepIntervalMs, async (isStopping) => {
      const failed = await drainBatches(() => retireV2Orders.execute(), isStopping);
      if (failed > 0) {
        this.logger.log({ failed }, 'pending v2 orders failed with WATERMARK_V2_API_SUNSET');
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

import { drainBatches, PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { FailStuckOrdersUseCase } from './fail-stuck-orders.use-case';

/** Runs the stuck-order sweep periodically on every replica (claims are SKIP LOCKED). */
@Injectable()
export class StuckOrdersScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(StuckOrdersScheduler.name);
  private readonly task: PeriodicTask;

  constructor(@Inject(ORDERS_CONFIG) config: OrdersConfig, failStuckOrders: FailStuckOrdersUseCase) {
    this.task = new PeriodicTask('stuck-order sweep', config.stuckOrders.sweepIntervalMs, async (isStopping) => {
      const failed = await drainBatches(() => failStuckOrders.execute(), isStopping);
      if (failed > 0) {
        this.logger.warn({ failed, maxAgeMs: config.stuckOrders.maxAgeMs }, 'stuck orders failed with PROCESSING_TIMEOUT; credits restored');
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

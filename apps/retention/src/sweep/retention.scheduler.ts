import { drainBatches, PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { RecheckErasedPrefixesUseCase } from '../erasure/recheck-erased-prefixes.use-case';
import { SweepExpiredOrdersUseCase } from './sweep-expired-orders.use-case';

/**
 * Runs the retention sweep every interval and drains all due batches, then the looks at erased prefixes. Also runs once at start, so a
 * sweep cut short by a crash finishes as soon as the service is back.
 */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RetentionScheduler.name);
  private readonly task: PeriodicTask;

  constructor(@Inject(RETENTION_CONFIG) config: Pick<RetentionConfig, 'retention'>, sweepExpiredOrders: SweepExpiredOrdersUseCase, recheckErased: RecheckErasedPrefixesUseCase) {
    this.task = new PeriodicTask(
      'retention sweep',
      config.retention.sweepIntervalMs,
      async (isStopping) => {
        const handled = await drainBatches(() => sweepExpiredOrders.execute(), isStopping);
        if (handled > 0) {
          this.logger.log({ handled }, 'retention sweep finished');
        }
        // Erased accounts' and orders' prefixes, for objects that jobs in flight at the erasure wrote since.
        const looked = await drainBatches(() => recheckErased.execute(), isStopping);
        if (looked > 0) {
          this.logger.log({ looked }, 'erased prefixes looked at again');
        }
      },
      { runAtStart: true },
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}

import { PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { ReconcileSchedulesUseCase } from './reconcile-schedules.use-case';

/**
 * Runs the reconciliation of the schedule with orders every `RETENTION_RECONCILE_INTERVAL_MS`: each run reads page
 * after page up to the bound, `RETENTION_RECONCILE_PAUSE_MS` apart so a long walk (the first one, from the oldest
 * order) does not hammer orders. Also once at start: a restart after an outage is when events were likely missed.
 */
@Injectable()
export class ReconciliationScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReconciliationScheduler.name);
  private readonly task: PeriodicTask;

  constructor(@Inject(RETENTION_CONFIG) config: Pick<RetentionConfig, 'reconcile'>, reconcileSchedules: ReconcileSchedulesUseCase) {
    const { intervalMs, pauseMs } = config.reconcile;
    this.task = new PeriodicTask(
      'schedule reconciliation',
      intervalMs,
      async (isStopping) => {
        let read = 0;
        let reconciled = 0;
        for (;;) {
          const page = await reconcileSchedules.execute();
          read += page.read;
          reconciled += page.reconciled;
          if (!page.more || isStopping()) {
            break;
          }
          await sleep(pauseMs);
        }
        if (read > 0) {
          this.logger.debug({ read, reconciled }, 'schedule reconciliation pass finished');
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

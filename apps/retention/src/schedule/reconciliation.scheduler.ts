import { PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { ReconcileFailedOrdersUseCase } from './reconcile-failed-orders.use-case';
import { ReconcileSchedulesUseCase } from './reconcile-schedules.use-case';
import { ReconciledPage } from './reconcile-with-orders.use-case';

/**
 * Runs the reconciliations with orders every `RETENTION_RECONCILE_INTERVAL_MS`, the schedule's (expiries) then the
 * failed orders' (early deletions): each run reads page after page up to the bound, `RETENTION_RECONCILE_PAUSE_MS`
 * apart so a long walk (the first one, from the oldest order) does not hammer orders. Also once at start: a restart
 * after an outage is when events were likely missed. A walk that fails does not keep the other from running.
 */
@Injectable()
export class ReconciliationScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReconciliationScheduler.name);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(RETENTION_CONFIG) config: Pick<RetentionConfig, 'reconcile'>,
    reconcileSchedules: ReconcileSchedulesUseCase,
    reconcileFailedOrders: ReconcileFailedOrdersUseCase,
  ) {
    const { intervalMs, pauseMs } = config.reconcile;
    /** Every page of one walk up to its bound, `pauseMs` apart. */
    const walk = async (name: string, page: () => Promise<ReconciledPage>, isStopping: () => boolean): Promise<void> => {
      let read = 0;
      let reconciled = 0;
      for (;;) {
        const next = await page();
        read += next.read;
        reconciled += next.reconciled;
        if (!next.more || isStopping()) {
          break;
        }
        await sleep(pauseMs);
      }
      if (read > 0) {
        this.logger.debug({ read, reconciled }, `${name} pass finished`);
      }
    };
    this.task = new PeriodicTask(
      'schedule reconciliation',
      intervalMs,
      async (isStopping) => {
        const walks: Array<[string, () => Promise<ReconciledPage>]> = [
          ['schedule reconciliation', () => reconcileSchedules.execute()],
          ['failed-order reconciliation', () => reconcileFailedOrders.execute()],
        ];
        const errors: unknown[] = [];
        for (const [name, page] of walks) {
          if (isStopping()) {
            break;
          }
          await walk(name, page, isStopping).catch((error: unknown) => errors.push(error));
        }
        if (errors.length > 0) {
          // The periodic task logs it; the next run goes on from both cursors.
          throw errors.length === 1 ? errors[0] : new AggregateError(errors, 'both reconciliations with orders failed');
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

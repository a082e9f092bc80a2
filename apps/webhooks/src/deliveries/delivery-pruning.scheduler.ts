import { drainBatches, PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';
import { PruneDeliveriesUseCase } from './prune-deliveries.use-case';

/**
 * Runs the pruning of ended deliveries periodically on every replica (batches are SKIP LOCKED, so replicas take
 * different rows), draining every due batch. Also once at start, so a backlog left by a long stop goes at once.
 */
@Injectable()
export class DeliveryPruningScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryPruningScheduler.name);
  private readonly task: PeriodicTask;

  constructor(@Inject(WEBHOOKS_SETTINGS) settings: WebhooksSettings, pruneDeliveries: PruneDeliveriesUseCase) {
    this.task = new PeriodicTask(
      'webhook delivery pruning',
      settings.deliveryRetention.intervalMs,
      async (isStopping) => {
        const pruned = await drainBatches(() => pruneDeliveries.execute(), isStopping);
        if (pruned > 0) {
          this.logger.log({ pruned, keepMs: settings.deliveryRetention.keepMs }, 'ended webhook deliveries pruned');
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

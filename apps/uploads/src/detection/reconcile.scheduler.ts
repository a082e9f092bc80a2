import { PeriodicTask } from '@cp/runtime';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { ReconcileUploadsUseCase } from './reconcile-uploads.use-case';

@Injectable()
export class ReconcileScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReconcileScheduler.name);
  private readonly task: PeriodicTask;

  constructor(@Inject(UPLOADS_CONFIG) config: UploadsConfig, reconcile: ReconcileUploadsUseCase) {
    this.task = new PeriodicTask('upload reconciliation', config.reconcile.intervalMs, async () => {
      const found = await reconcile.execute();
      if (found > 0) {
        this.logger.warn({ found }, 'uploads found by reconciliation (notifications were missing)');
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

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { ReconcileUploadsUseCase } from './reconcile-uploads.use-case';

@Injectable()
export class ReconcileScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReconcileScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly reconcile: ReconcileUploadsUseCase,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (!this.running) {
        this.running = this.reconcile
          .execute()
          .then((found) => {
            if (found > 0) {
              this.logger.warn({ found }, 'uploads found by reconciliation (notifications were missing)');
            }
          })
          .catch((error: unknown) => this.logger.error({ err: error }, 'reconciliation failed'))
          .finally(() => (this.running = undefined));
      }
    }, this.config.reconcile.intervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';
import { RequeueStuckReportsUseCase } from './requeue-stuck-reports.use-case';

/** Runs the sweep every REPORTS_SWEEP_INTERVAL_MS. */
@Injectable()
export class StuckReportsSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(StuckReportsSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly requeue: RequeueStuckReportsUseCase,
    @Inject(REPORTS_SETTINGS) private readonly settings: ReportsSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopping) {
      return;
    }
    this.timer = setTimeout(() => {
      this.running = this.requeue
        .execute()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error({ err: error }, 'stuck report sweep failed'))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.settings.sweepIntervalMs);
  }
}

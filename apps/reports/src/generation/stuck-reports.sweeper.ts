import { PeriodicTask } from '@cp/runtime';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { REPORTS_SETTINGS, ReportsSettings } from '../reports.config';
import { RequeueStuckReportsUseCase } from './requeue-stuck-reports.use-case';

/** Runs the sweep every REPORTS_SWEEP_INTERVAL_MS. */
@Injectable()
export class StuckReportsSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(requeue: RequeueStuckReportsUseCase, @Inject(REPORTS_SETTINGS) settings: ReportsSettings) {
    this.loop = new PeriodicTask('stuck report sweep', settings.sweepIntervalMs, () => requeue.execute().then(() => undefined));
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }
}

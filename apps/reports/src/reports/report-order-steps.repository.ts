import { OrderTimelineStep } from '@cp/contracts';
import { OrderStepsSource } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ReportEntity } from './report.entity';

/** The order timeline's report steps: each report requested, and where it stands with its failed attempts. */
@Injectable()
export class ReportOrderStepsRepository implements OrderStepsSource {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async stepsOf(orderId: string): Promise<OrderTimelineStep[]> {
    const reports = await this.dataSource.getRepository(ReportEntity).find({ where: { orderId }, order: { requestedAt: 'ASC' } });
    return reports.flatMap((report) => [
      { at: report.requestedAt.toISOString(), service: 'reports', step: `report ${report.locale} requested` },
      {
        at: report.statusChangedAt.toISOString(),
        service: 'reports',
        step: `report ${report.locale} ${report.status}`,
        detail: `${report.failedAttempts} failed attempt${report.failedAttempts === 1 ? '' : 's'}, ${report.requeues} requeue${report.requeues === 1 ? '' : 's'}${report.failureCode ? `; ${report.failureCode}` : ''}`,
      },
    ]);
  }
}

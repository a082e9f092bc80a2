import { DomainException, ErrorCode, GetReportQuery, ReportView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderContextClient } from './order-context.client';
import { assertNotExpired } from './report-policy';
import { ReportViews } from './report-views.service';
import { ReportsRepository } from './reports.repository';

/** Spec 4.6: the report of one locale; ORDER_EXPIRED after retention whatever its status. */
@Injectable()
export class GetReportUseCase {
  constructor(
    private readonly orders: OrderContextClient,
    private readonly repository: ReportsRepository,
    private readonly views: ReportViews,
  ) {}

  async execute(query: GetReportQuery): Promise<ReportView> {
    // Ownership comes from the orders service: it answers RESOURCE_NOT_FOUND for another account's order.
    const context = await this.orders.get(query.caller, query.orderId);
    const row = await this.repository.find(query.orderId, query.locale);
    assertNotExpired(context, row?.state ?? null, await this.repository.isOrderExpired(query.orderId));
    if (!row) {
      throw new DomainException(ErrorCode.REPORT_NOT_FOUND, `no ${query.locale} report was requested for order ${query.orderId}`);
    }
    return this.views.view(row.state, context.orderName);
  }
}

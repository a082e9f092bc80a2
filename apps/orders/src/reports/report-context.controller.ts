import { ReportContextQuery, ReportContextView, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { ReportContextService } from './report-context.service';

/** What the reports service reads about an order to make its report. */
@RpcHandlers()
@Controller()
export class ReportContextRpcController {
  constructor(private readonly reportContexts: ReportContextService) {}

  @RpcHandler(Rpcs.ordersReportContext)
  reportContext(query: ReportContextQuery): Promise<ReportContextView> {
    return this.reportContexts.get(query);
  }
}

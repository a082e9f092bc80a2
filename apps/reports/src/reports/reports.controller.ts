import { GetReportQuery, Rpcs, ReportView, RequestReportCommand, RequestReportResult } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { GetReportUseCase } from './get-report.use-case';
import { RequestReportUseCase } from './request-report.use-case';

@RpcHandlers()
@Controller()
export class ReportsRpcController {
  constructor(
    private readonly requestReport: RequestReportUseCase,
    private readonly getReport: GetReportUseCase,
  ) {}

  @RpcHandler(Rpcs.reportsRequest)
  request(command: RequestReportCommand): Promise<RequestReportResult> {
    return this.requestReport.execute(command);
  }

  @RpcHandler(Rpcs.reportsGet)
  get(query: GetReportQuery): Promise<ReportView> {
    return this.getReport.execute(query);
  }
}

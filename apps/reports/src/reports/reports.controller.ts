import { GetReportQuery, ReportRpcPatterns, ReportView, RequestReportCommand, RequestReportResult } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GetReportUseCase } from './get-report.use-case';
import { RequestReportUseCase } from './request-report.use-case';

@RpcHandlers()
@Controller()
export class ReportsRpcController {
  constructor(
    private readonly requestReport: RequestReportUseCase,
    private readonly getReport: GetReportUseCase,
  ) {}

  @MessagePattern(ReportRpcPatterns.request)
  request(@Payload() command: RequestReportCommand): Promise<RequestReportResult> {
    return this.requestReport.execute(command);
  }

  @MessagePattern(ReportRpcPatterns.get)
  get(@Payload() query: GetReportQuery): Promise<ReportView> {
    return this.getReport.execute(query);
  }
}

import { Rpcs } from '@cp/contracts';
import { ORDER_STEPS_SOURCE, orderStepsController } from '@cp/messaging';
import { Module } from '@nestjs/common';
import { ExpireOrderReportsUseCase } from '../expiry/expire-order-reports.use-case';
import { OrderExpiredConsumer } from '../expiry/order-expired.consumer';
import { FileEvidenceReader } from '../generation/file-evidence.reader';
import { GenerateReportConsumer } from '../generation/generate-report.consumer';
import { GenerateReportUseCase } from '../generation/generate-report.use-case';
import { ReportOutcomes } from '../generation/report-outcomes.service';
import { RequeueStuckReportsUseCase } from '../generation/requeue-stuck-reports.use-case';
import { StuckReportsSweeper } from '../generation/stuck-reports.sweeper';
import { PdfRenderer } from '../rendering/pdf-renderer';
import { GetReportUseCase } from './get-report.use-case';
import { OrderContextClient } from './order-context.client';
import { ReportOrderStepsRepository } from './report-order-steps.repository';
import { ReportViews } from './report-views.service';
import { ReportsRpcController } from './reports.controller';
import { ReportsRepository } from './reports.repository';
import { RequestReportUseCase } from './request-report.use-case';

@Module({
  controllers: [ReportsRpcController, orderStepsController(Rpcs.reportsOrderSteps, 'reports')],
  providers: [
    { provide: ORDER_STEPS_SOURCE, useClass: ReportOrderStepsRepository },
    ReportsRepository,
    ReportViews,
    OrderContextClient,
    RequestReportUseCase,
    GetReportUseCase,
    PdfRenderer,
    FileEvidenceReader,
    ReportOutcomes,
    GenerateReportUseCase,
    GenerateReportConsumer,
    RequeueStuckReportsUseCase,
    StuckReportsSweeper,
    ExpireOrderReportsUseCase,
    OrderExpiredConsumer,
  ],
})
export class ReportsModule {}

import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { DownloadsService } from '../downloads/downloads.service';
import { SampleFiles } from '../downloads/sample-files';
import { ProcessorEventsConsumer } from '../processing/processor-events.consumer';
import { StartProcessingUseCase } from '../processing/start-processing.use-case';
import { UploadEventsConsumer } from '../processing/upload-events.consumer';
import { ExpireUploadWindowUseCase } from '../upload-window/expire-upload-window.use-case';
import { UploadWindowScheduler } from '../upload-window/upload-window.scheduler';
import { ExtractResults } from '../processing/extract-results.service';
import { ReportContextService } from '../reports/report-context.service';
import { ReportStatusConsumer } from '../reports/report-status.consumer';
import { CreateEmbedOrderUseCase } from './create-embed-order.use-case';
import { CreateExtractOrderUseCase } from './create-extract-order.use-case';
import { OrderCreation } from './order-creation.service';
import { OrderLifecycle } from './order-lifecycle.service';
import { OrdersRpcController } from './orders.controller';
import { OrdersQueryService } from './orders-query.service';
import { OrdersRepository } from './orders.repository';
import { UploadsClient } from './uploads.client';

@Module({
  imports: [CreditsModule],
  controllers: [OrdersRpcController],
  providers: [
    OrdersRepository,
    OrdersQueryService,
    OrderLifecycle,
    UploadsClient,
    OrderCreation,
    CreateEmbedOrderUseCase,
    CreateExtractOrderUseCase,
    ExtractResults,
    ReportContextService,
    ReportStatusConsumer,
    StartProcessingUseCase,
    UploadEventsConsumer,
    ProcessorEventsConsumer,
    DownloadsService,
    SampleFiles,
    ExpireUploadWindowUseCase,
    UploadWindowScheduler,
  ],
})
export class OrdersModule {}

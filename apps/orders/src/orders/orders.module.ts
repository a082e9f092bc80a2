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
import { ExpireOrdersUseCase } from '../expiry/expire-orders.use-case';
import { ExpiryRpcController } from '../expiry/expiry.controller';
import { CreateV2EmbedOrderUseCase } from '../v2/create-v2-embed-order.use-case';
import { CreateV2ExtractOrderUseCase } from '../v2/create-v2-extract-order.use-case';
import { RefreshUploadUrlsUseCase } from '../v2/refresh-upload-urls.use-case';
import { RetireV2OrdersUseCase } from '../v2/retire-v2-orders.use-case';
import { V2DownloadsService } from '../v2/v2-downloads.service';
import { V2OrdersRpcController } from '../v2/v2-orders.controller';
import { V2OrdersQueryService } from '../v2/v2-orders-query.service';
import { V2RetirementScheduler } from '../v2/v2-retirement.scheduler';
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
  controllers: [OrdersRpcController, V2OrdersRpcController, ExpiryRpcController],
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
    // Retention (issue 9): the retention service calls `orders.expire`.
    ExpireOrdersUseCase,
    // The deprecated v2 surface and its retirement.
    CreateV2EmbedOrderUseCase,
    CreateV2ExtractOrderUseCase,
    V2OrdersQueryService,
    RefreshUploadUrlsUseCase,
    V2DownloadsService,
    RetireV2OrdersUseCase,
    V2RetirementScheduler,
  ],
})
export class OrdersModule {}

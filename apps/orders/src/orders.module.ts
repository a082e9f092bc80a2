import { Module } from '@nestjs/common';
import { CreditsModule } from './credits/credits.module';
import { DownloadsRpcController } from './downloads/downloads.controller';
import { DownloadsService } from './downloads/downloads.service';
import { AccountErasureConsumer } from './erasure/account-erasure.consumer';
import { AccountErasureRepository } from './erasure/account-erasure.repository';
import { EraseOrderUseCase } from './erasure/erase-order.use-case';
import { OrderErasureRpcController } from './erasure/order-erasure.controller';
import { EraseAccountOrdersUseCase } from './erasure/erase-account-orders.use-case';
import { ExpireOrdersUseCase } from './expiry/expire-orders.use-case';
import { ForgetTestOrderUrlsUseCase } from './expiry/forget-test-order-urls.use-case';
import { TestOrderRetentionEndedConsumer } from './expiry/test-order-retention-ended.consumer';
import { ExpiryRpcController } from './expiry/expiry.controller';
import { ExpirySchedulesRepository } from './expiry/expiry-schedules.repository';
import { ExpirySchedulesUseCase } from './expiry/expiry-schedules.use-case';
import { FailedOrdersRepository } from './expiry/failed-orders.repository';
import { FailedOrdersUseCase } from './expiry/failed-orders.use-case';
import { OrderTypeRegistry } from './order-types/order-type.registry';
import { ORDER_TYPE_DEFINITIONS } from './order-types/order-type-definition';
import { ORDER_TYPE_FOLDERS } from './order-type-folders';
import { ApplyResultUseCase } from './processing/apply-result.use-case';
import { FileFailedUseCase } from './processing/file-failed.use-case';
import { FileUploadedUseCase } from './processing/file-uploaded.use-case';
import { OrderDelayedUseCase } from './processing/order-delayed.use-case';
import { OrderProcessingService } from './processing/order-processing.service';
import { OrderResultsConsumer } from './processing/order-results.consumer';
import { UploadEventsConsumer } from './processing/upload-events.consumer';
import { ReportContextRpcController } from './reports/report-context.controller';
import { ReportContextService } from './reports/report-context.service';
import { ReportStatusConsumer } from './reports/report-status.consumer';
import { KeyModesService } from './sandbox/key-modes.service';
import { FailStuckOrdersUseCase } from './stuck-orders/fail-stuck-orders.use-case';
import { OrderTimelineHttpController } from './timeline/order-timeline-http.controller';
import { OrderTimelineRpcController } from './timeline/order-timeline.controller';
import { OrderTimelineRepository } from './timeline/order-timeline.repository';
import { OrderTimelineUseCase } from './timeline/order-timeline.use-case';
import { InProgressOrdersMetrics } from './stuck-orders/in-progress-orders.metrics';
import { InProgressOrdersRepository } from './stuck-orders/in-progress-orders.repository';
import { StuckOrdersScheduler } from './stuck-orders/stuck-orders.scheduler';
import { SampleFiles } from './sandbox/sample-files';
import { ExpireUploadWindowUseCase } from './upload-window/expire-upload-window.use-case';
import { UploadWindowScheduler } from './upload-window/upload-window.scheduler';
import { RegisterMissingSlotsUseCase } from './upload-window/register-missing-slots.use-case';
import { SlotRegistrationScheduler } from './upload-window/slot-registration.scheduler';
import { RefreshUploadUrlsUseCase } from './v2/refresh-upload-urls.use-case';
import { RetireV2OrdersUseCase } from './v2/retire-v2-orders.use-case';
import { V2DownloadsService } from './v2/v2-downloads.service';
import { V2OrdersRpcController } from './v2/v2-orders.controller';
import { V2OrdersQueryService } from './v2/v2-orders-query.service';
import { V2RetirementScheduler } from './v2/v2-retirement.scheduler';
import { IdempotencyRepository } from './orders/idempotency.repository';
import { ObjectUrlsService } from './orders/object-urls.service';
import { OrderAccessService } from './orders/order-access.service';
import { OrderCreationService } from './orders/order-creation.service';
import { OrdersRpcController } from './orders/orders.controller';
import { OrdersQueryService } from './orders/orders-query.service';
import { OrdersRepository } from './orders/orders.repository';
import { UploadsClient } from './orders/uploads.client';

/**
 * The orders service: its folders assembled (at the root, so no folder imports the ones above it; issue 31).
 */
@Module({
  imports: [CreditsModule],
  controllers: [
    OrdersRpcController,
    DownloadsRpcController,
    ReportContextRpcController,
    V2OrdersRpcController,
    ExpiryRpcController,
    OrderTimelineRpcController,
    OrderErasureRpcController,
    OrderTimelineHttpController,
    ...ORDER_TYPE_FOLDERS.flatMap((folder) => folder.controllers),
  ],
  providers: [
    // Persistence and the parts every order type shares.
    OrdersRepository,
    IdempotencyRepository,
    OrderAccessService,
    OrderCreationService,
    OrdersQueryService,
    ObjectUrlsService,
    UploadsClient,
    KeyModesService,
    SampleFiles,
    OrderTypeRegistry,
    // The order types (one folder each).
    ...ORDER_TYPE_FOLDERS.flatMap((folder) => [folder.definition, ...folder.providers]),
    { provide: ORDER_TYPE_DEFINITIONS, useValue: ORDER_TYPE_FOLDERS.map((folder) => folder.definition) },
    // Processing: uploads in, results of the workers.
    OrderProcessingService,
    FileUploadedUseCase,
    FileFailedUseCase,
    UploadEventsConsumer,
    ApplyResultUseCase,
    OrderResultsConsumer,
    OrderDelayedUseCase,
    DownloadsService,
    ReportContextService,
    ReportStatusConsumer,
    ExpireUploadWindowUseCase,
    UploadWindowScheduler,
    RegisterMissingSlotsUseCase,
    SlotRegistrationScheduler,
    // Orders stuck inProgress fail with PROCESSING_TIMEOUT and get their credits back.
    FailStuckOrdersUseCase,
    StuckOrdersScheduler,
    InProgressOrdersRepository,
    InProgressOrdersMetrics,
    // An order's timeline for operators (issue 33).
    OrderTimelineRepository,
    OrderTimelineUseCase,
    // Retention (issue 9): the retention service calls `orders.expire`, and reads expiries to reconcile its schedule.
    ExpireOrdersUseCase,
    ForgetTestOrderUrlsUseCase,
    TestOrderRetentionEndedConsumer,
    ExpirySchedulesRepository,
    ExpirySchedulesUseCase,
    FailedOrdersRepository,
    FailedOrdersUseCase,
    // An operator's account erasure: the account's rows of this schema.
    AccountErasureRepository,
    EraseAccountOrdersUseCase,
    AccountErasureConsumer,
    EraseOrderUseCase,
    // The deprecated v2 surface and its retirement.
    V2OrdersQueryService,
    RefreshUploadUrlsUseCase,
    V2DownloadsService,
    RetireV2OrdersUseCase,
    V2RetirementScheduler,
  ],
})
export class OrdersModule {}

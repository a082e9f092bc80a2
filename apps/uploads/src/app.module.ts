import { ServiceKitModule } from '@cp/runtime';
import { AccountErasureConsumer } from './erasure/account-erasure.consumer';
import { OrderErasureConsumer } from './erasure/order-erasure.consumer';
import { AccountErasureRepository } from './erasure/account-erasure.repository';
import { EraseAccountUploadsUseCase } from './erasure/erase-account-uploads.use-case';
import { Rpcs } from '@cp/contracts';
import { ORDER_STEPS_SOURCE, orderStepsController } from '@cp/messaging';
import { DynamicModule, Module } from '@nestjs/common';
import { UploadOrderStepsRepository } from './slots/upload-order-steps.repository';
import { UPLOADS_ENTITIES, UPLOADS_SCHEMA } from './database/entities';
import { UPLOADS_MIGRATIONS } from './database/migrations';
import { ReconcileUploadsUseCase } from './detection/reconcile-uploads.use-case';
import { ReconcileScheduler } from './detection/reconcile.scheduler';
import { StorageEventsConsumer } from './detection/storage-events.consumer';
import { FetchSourceConsumer } from './fetch/fetch-source.consumer';
import { SourceFetcher } from './fetch/source-fetcher';
import { ForgetExpiredOrderSlotsUseCase } from './order-expiry/forget-expired-order-slots.use-case';
import { OrderExpiredConsumer } from './order-expiry/order-expired.consumer';
import { TestOrderRetentionEndedConsumer } from './order-expiry/test-order-retention-ended.consumer';
import { CloseFailedOrderSlotsUseCase } from './order-failure/close-failed-order-slots.use-case';
import { OrderFailedConsumer } from './order-failure/order-failed.consumer';
import { MarkUploadedUseCase } from './slots/mark-uploaded.use-case';
import { ReceiveUploadUseCase } from './slots/receive-upload.use-case';
import { RegisterSlotsUseCase } from './slots/register-slots.use-case';
import { SlotsRpcController } from './slots/slots.controller';
import { UploadSlotsRepository } from './slots/upload-slots.repository';
import { SlotsService } from './slots/slots.service';
import { UploadUrlsService } from './slots/upload-urls.service';
import { UPLOADS_CONFIG, UploadsConfig } from './uploads.config';

@Module({})
export class AppModule {
  static forRoot(config: UploadsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'uploads',
          schema: UPLOADS_SCHEMA,
          core: config,
          storage: config.storage,
          entities: UPLOADS_ENTITIES,
          migrations: UPLOADS_MIGRATIONS,
        }),
      ],
      controllers: [SlotsRpcController, orderStepsController(Rpcs.uploadsOrderSteps, 'uploads')],
      providers: [
        { provide: ORDER_STEPS_SOURCE, useClass: UploadOrderStepsRepository },
        { provide: UPLOADS_CONFIG, useValue: config },
        UploadSlotsRepository,
        SlotsService,
        RegisterSlotsUseCase,
        UploadUrlsService,
        MarkUploadedUseCase,
        ReceiveUploadUseCase,
        StorageEventsConsumer,
        ReconcileUploadsUseCase,
        ReconcileScheduler,
        SourceFetcher,
        FetchSourceConsumer,
        CloseFailedOrderSlotsUseCase,
        OrderFailedConsumer,
        ForgetExpiredOrderSlotsUseCase,
        OrderExpiredConsumer,
        TestOrderRetentionEndedConsumer,
        // An operator's account erasure.
        AccountErasureRepository,
        EraseAccountUploadsUseCase,
        AccountErasureConsumer,
        OrderErasureConsumer,
      ],
    };
  }
}

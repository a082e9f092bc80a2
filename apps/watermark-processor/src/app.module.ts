import { ErasedScopesRepository } from '@cp/database';
import { ServiceKitModule } from '@cp/runtime';
import { Rpcs } from '@cp/contracts';
import { orderStepsController } from '@cp/messaging';
import { DynamicModule, Module } from '@nestjs/common';
import { AntiAiJobConsumer } from './anti-ai/anti-ai-job.consumer';
import { AntiAiProtectUseCase } from './anti-ai/anti-ai-protect.use-case';
import { AntiAiProtector } from './anti-ai/anti-ai-protector';
import { OutputTargetUploader } from './anti-ai/output-target-uploader';
import { WATERMARK_ENTITIES, WATERMARK_SCHEMA } from './database/entities';
import { WATERMARK_MIGRATIONS } from './database/migrations';
import { AccountErasureConsumer } from './erasure/account-erasure.consumer';
import { OrderErasureConsumer } from './erasure/order-erasure.consumer';
import { AccountErasureRepository } from './erasure/account-erasure.repository';
import { EraseAccountIssuancesUseCase } from './erasure/erase-account-issuances.use-case';
import { EmbedJobConsumer } from './embed/embed-job.consumer';
import { EmbedOutputUseCase } from './embed/embed-output.use-case';
import { ProcessingDelays } from './embed/processing-delays.service';
import { ExtractJobConsumer } from './extract/extract-job.consumer';
import { ExtractWatermarkUseCase } from './extract/extract-watermark.use-case';
import { WatermarkEngine } from './engine/watermark-engine';
import { IssuanceRepository } from './issuance/issuance.repository';
import { LastOutputPackageService } from './package/last-output-package.service';
import { PackageJobConsumer } from './package/package-job.consumer';
import { PackageOrderUseCase } from './package/package-order.use-case';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from './watermark-processor.config';

@Module({})
export class AppModule {
  static forRoot(config: WatermarkProcessorConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'watermark-processor',
          schema: WATERMARK_SCHEMA,
          core: config,
          storage: config.storage,
          entities: WATERMARK_ENTITIES,
          migrations: WATERMARK_MIGRATIONS,
        }),
      ],
      // The order timeline's steps of this service: its job attempts (issue 33).
      controllers: [orderStepsController(Rpcs.watermarkOrderSteps, 'watermark-processor')],
      providers: [
        { provide: PROCESSOR_CONFIG, useValue: config },
        IssuanceRepository,
        ErasedScopesRepository,
        WatermarkEngine,
        EmbedOutputUseCase,
        EmbedJobConsumer,
        ProcessingDelays,
        ExtractWatermarkUseCase,
        ExtractJobConsumer,
        PackageOrderUseCase,
        LastOutputPackageService,
        PackageJobConsumer,
        AntiAiProtector,
        OutputTargetUploader,
        AntiAiProtectUseCase,
        AntiAiJobConsumer,
        // An operator's account erasure.
        AccountErasureRepository,
        EraseAccountIssuancesUseCase,
        AccountErasureConsumer,
        OrderErasureConsumer,
      ],
    };
  }
}

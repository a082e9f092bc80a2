import { ServiceKitModule } from '@cp/runtime';
import { Rpcs } from '@cp/contracts';
import { orderStepsController } from '@cp/messaging';
import { DynamicModule, Module } from '@nestjs/common';
import { AI_DETECTOR_CONFIG, AiDetectorConfig } from './ai-detector.config';
import { AIDETECT_ENTITIES, AIDETECT_SCHEMA } from './database/entities';
import { AIDETECT_MIGRATIONS } from './database/migrations';
import { AiDetectorProvider } from './detection/ai-detector.provider';
import { DetectImageUseCase } from './detection/detect-image.use-case';
import { DetectionExhaustedUseCase } from './detection/detection-exhausted.use-case';
import { DetectionJobConsumer } from './detection/detection-job.consumer';
import { DetectionRunRepository } from './detection/detection-run.repository';

@Module({})
export class AppModule {
  static forRoot(config: AiDetectorConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'ai-detector',
          schema: AIDETECT_SCHEMA,
          core: config,
          storage: config.storage,
          entities: AIDETECT_ENTITIES,
          migrations: AIDETECT_MIGRATIONS,
        }),
      ],
      // The order timeline's steps of this service: its job attempts (issue 33).
      controllers: [orderStepsController(Rpcs.aidetectOrderSteps, 'ai-detector')],
      providers: [
        { provide: AI_DETECTOR_CONFIG, useValue: config },
        AiDetectorProvider,
        DetectionRunRepository,
        DetectImageUseCase,
        DetectionExhaustedUseCase,
        DetectionJobConsumer,
      ],
    };
  }
}

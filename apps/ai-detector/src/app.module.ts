import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { AIDETECT_ENTITIES, AIDETECT_SCHEMA } from './database/entities';
import { AIDETECT_MIGRATIONS } from './database/migrations';
import { AiDetectorConfig } from './ai-detector.config';

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
    };
  }
}

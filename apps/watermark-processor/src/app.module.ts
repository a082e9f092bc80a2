import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { WATERMARK_ENTITIES, WATERMARK_SCHEMA } from './database/entities';
import { WATERMARK_MIGRATIONS } from './database/migrations';
import { WatermarkProcessorConfig } from './watermark-processor.config';

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
    };
  }
}

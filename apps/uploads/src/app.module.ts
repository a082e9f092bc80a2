import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { UPLOADS_ENTITIES, UPLOADS_SCHEMA } from './database/entities';
import { UPLOADS_MIGRATIONS } from './database/migrations';
import { UploadsConfig } from './uploads.config';

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
    };
  }
}

import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { RETENTION_ENTITIES, RETENTION_SCHEMA } from './database/entities';
import { RETENTION_MIGRATIONS } from './database/migrations';
import { RetentionConfig } from './retention.config';

@Module({})
export class AppModule {
  static forRoot(config: RetentionConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'retention',
          schema: RETENTION_SCHEMA,
          core: config,
          storage: config.storage,
          entities: RETENTION_ENTITIES,
          migrations: RETENTION_MIGRATIONS,
        }),
      ],
    };
  }
}

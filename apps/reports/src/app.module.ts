import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { REPORTS_ENTITIES, REPORTS_SCHEMA } from './database/entities';
import { REPORTS_MIGRATIONS } from './database/migrations';
import { ReportsConfig } from './reports.config';

@Module({})
export class AppModule {
  static forRoot(config: ReportsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'reports',
          schema: REPORTS_SCHEMA,
          core: config,
          storage: config.storage,
          entities: REPORTS_ENTITIES,
          migrations: REPORTS_MIGRATIONS,
        }),
      ],
    };
  }
}

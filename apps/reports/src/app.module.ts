import { RpcClientModule } from '@cp/messaging';
import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { REPORTS_ENTITIES, REPORTS_SCHEMA } from './database/entities';
import { REPORTS_MIGRATIONS } from './database/migrations';
import { AccountErasureConsumer } from './erasure/account-erasure.consumer';
import { OrderErasureConsumer } from './erasure/order-erasure.consumer';
import { AccountErasureRepository } from './erasure/account-erasure.repository';
import { EraseAccountReportsUseCase } from './erasure/erase-account-reports.use-case';
import { REPORTS_SETTINGS, ReportsConfig } from './reports.config';
import { ReportsModule } from './reports/reports.module';

/** The service's own settings, injectable everywhere by token. */
@Global()
@Module({})
class ReportsSettingsModule {
  static forRoot(config: ReportsConfig): DynamicModule {
    return { module: ReportsSettingsModule, providers: [{ provide: REPORTS_SETTINGS, useValue: config.reports }], exports: [REPORTS_SETTINGS] };
  }
}

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
        ReportsSettingsModule.forRoot(config),
        RpcClientModule.register(config.nats.url, 'reports'),
        ReportsModule,
      ],
      // An operator's account erasure.
      providers: [AccountErasureRepository, EraseAccountReportsUseCase, AccountErasureConsumer, OrderErasureConsumer],
    };
  }
}

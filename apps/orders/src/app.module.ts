import { RpcClientModule } from '@cp/messaging';
import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { CreditsModule } from './credits/credits.module';
import { ORDERS_ENTITIES, ORDERS_SCHEMA } from './database/entities';
import { ORDERS_MIGRATIONS } from './database/migrations';
import { ORDERS_CONFIG, OrdersConfig } from './orders.config';
import { OrdersModule } from './orders.module';

@Global()
@Module({})
class OrdersConfigModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return { module: OrdersConfigModule, providers: [{ provide: ORDERS_CONFIG, useValue: config }], exports: [ORDERS_CONFIG] };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: OrdersConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'orders',
          schema: ORDERS_SCHEMA,
          core: config,
          storage: config.storage,
          entities: ORDERS_ENTITIES,
          migrations: ORDERS_MIGRATIONS,
        }),
        OrdersConfigModule.forRoot(config),
        RpcClientModule.register(config.nats.url, 'orders'),
        CreditsModule,
        OrdersModule,
      ],
    };
  }
}

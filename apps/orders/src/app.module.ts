import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { CreditsModule } from './credits/credits.module';
import { ORDERS_ENTITIES, ORDERS_SCHEMA } from './database/entities';
import { ORDERS_MIGRATIONS } from './database/migrations';
import { OrdersConfig } from './orders.config';
import { OrdersModule } from './orders/orders.module';

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
          entities: ORDERS_ENTITIES,
          migrations: ORDERS_MIGRATIONS,
        }),
        CreditsModule,
        OrdersModule,
      ],
    };
  }
}

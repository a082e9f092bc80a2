import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOKS_ENTITIES, WEBHOOKS_SCHEMA } from './database/entities';
import { WEBHOOKS_MIGRATIONS } from './database/migrations';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { ErasureModule } from './erasure/erasure.module';
import { ManagementModule } from './management/management.module';
import { NotificationsModule } from './notifications/notifications.module';
import { WebhooksConfig } from './webhooks.config';
import { WebhooksSettingsModule } from './webhooks-settings.module';

@Module({})
export class AppModule {
  static forRoot(config: WebhooksConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'webhooks',
          schema: WEBHOOKS_SCHEMA,
          core: config,
          storage: config.storage,
          entities: WEBHOOKS_ENTITIES,
          migrations: WEBHOOKS_MIGRATIONS,
        }),
        WebhooksSettingsModule.forRoot(config),
        NotificationsModule,
        DeliveriesModule,
        ManagementModule,
        ErasureModule,
      ],
    };
  }
}

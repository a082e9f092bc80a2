import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOKS_ENTITIES, WEBHOOKS_SCHEMA } from './database/entities';
import { WEBHOOKS_MIGRATIONS } from './database/migrations';
import { WebhooksConfig } from './webhooks.config';

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
          entities: WEBHOOKS_ENTITIES,
          migrations: WEBHOOKS_MIGRATIONS,
        }),
      ],
    };
  }
}

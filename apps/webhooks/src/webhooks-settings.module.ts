import { DynamicModule, Global, Module } from '@nestjs/common';
import { MAIL_SETTINGS, WEBHOOKS_SETTINGS, WebhooksConfig } from './webhooks.config';

/** The service's own settings, injectable everywhere by token. */
@Global()
@Module({})
export class WebhooksSettingsModule {
  static forRoot(config: WebhooksConfig): DynamicModule {
    return {
      module: WebhooksSettingsModule,
      providers: [
        { provide: WEBHOOKS_SETTINGS, useValue: config.webhooks },
        { provide: MAIL_SETTINGS, useValue: config.mail },
      ],
      exports: [WEBHOOKS_SETTINGS, MAIL_SETTINGS],
    };
  }
}

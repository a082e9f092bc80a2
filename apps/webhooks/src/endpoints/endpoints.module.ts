import { Module } from '@nestjs/common';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';
import { SecretCipher } from './secret-cipher';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

@Module({
  providers: [
    WebhookEndpointsRepository,
    { provide: SecretCipher, inject: [WEBHOOKS_SETTINGS], useFactory: (settings: WebhooksSettings) => new SecretCipher(settings.secretEncryptionKey) },
  ],
  exports: [WebhookEndpointsRepository, SecretCipher],
})
export class EndpointsModule {}

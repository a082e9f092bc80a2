import { Module } from '@nestjs/common';
import { WebhooksController } from './webhooks.controller';

/** Webhook management routes under /api/v2/orders/webhooks (forwarded to the webhooks service). */
@Module({
  controllers: [WebhooksController],
})
export class WebhooksHttpModule {}

import { Module } from '@nestjs/common';

/** Webhook management routes under /api/v2/orders/webhooks (forwarded to the webhooks service). */
@Module({})
export class WebhooksHttpModule {}

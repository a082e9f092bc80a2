import { Module } from '@nestjs/common';

/**
 * The deprecated v2 order routes. Registered after the webhooks module: `/api/v2/orders/webhooks` must
 * match before `/api/v2/orders/:orderId`.
 */
@Module({})
export class V2HttpModule {}

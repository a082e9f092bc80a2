import { Module } from '@nestjs/common';
import { V2OrderLinkInterceptor } from './v2-order-link.interceptor';
import { V2OrdersController } from './v2-orders.controller';

/**
 * The deprecated v2 order routes. Registered after the webhooks module: `/api/v2/orders/webhooks` must
 * match before `/api/v2/orders/:orderId`.
 */
@Module({
  controllers: [V2OrdersController],
  providers: [V2OrderLinkInterceptor],
})
export class V2HttpModule {}

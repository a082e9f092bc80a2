import { Module } from '@nestjs/common';
import { V2SunsetInterceptor, V2DeprecatedInterceptor } from './v2-deprecation.interceptor';
import { V2OrdersController } from './v2-orders.controller';

/**
 * The deprecated v2 order routes. Registered after the webhooks module: `/api/v2/orders/webhooks` must
 * match before `/api/v2/orders/:orderId`.
 */
@Module({
  controllers: [V2OrdersController],
  providers: [V2SunsetInterceptor, V2DeprecatedInterceptor],
})
export class V2HttpModule {}

import { OrderTimelineQuery, OrderTimelineView, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { OrderTimelineUseCase } from './order-timeline.use-case';

/** `orders.order-timeline`: the admin CLI's `order timeline <orderId>`. */
@RpcHandlers()
@Controller()
export class OrderTimelineRpcController {
  constructor(private readonly timeline: OrderTimelineUseCase) {}

  @RpcHandler(Rpcs.ordersOrderTimeline)
  async get(query: OrderTimelineQuery): Promise<OrderTimelineView> {
    return this.timeline.execute(query);
  }
}

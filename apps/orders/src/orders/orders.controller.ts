import { BatchResults, GetOrderQuery, GetOrdersQuery, Rpcs, WatermarkOrderView } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { OrdersQueryService } from './orders-query.service';

/** The reads every order type shares (creation endpoints live in each type's folder, downloads and report contexts in theirs). */
@RpcHandlers()
@Controller()
export class OrdersRpcController {
  constructor(private readonly queries: OrdersQueryService) {}

  /** Single reads: what gateways before `orders.getMany` send, kept so that either can be deployed first. */
  @RpcHandler(Rpcs.ordersGet)
  get(query: GetOrderQuery): Promise<WatermarkOrderView> {
    return this.queries.get(query.caller, query.orderId);
  }

  @RpcHandler(Rpcs.ordersGetMany)
  getMany(query: GetOrdersQuery): Promise<BatchResults<WatermarkOrderView>> {
    return this.queries.getMany(query.items);
  }
}

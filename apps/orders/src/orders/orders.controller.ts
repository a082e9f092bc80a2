import { GetOrderQuery, RpcPatterns, WatermarkOrderView } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OrdersQueryService } from './orders-query.service';

@RpcHandlers()
@Controller()
export class OrdersRpcController {
  constructor(private readonly queries: OrdersQueryService) {}

  @MessagePattern(RpcPatterns.ordersGet)
  get(@Payload() query: GetOrderQuery): Promise<WatermarkOrderView> {
    return this.queries.get(query.caller, query.orderId);
  }
}

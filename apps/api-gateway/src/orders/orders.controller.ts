import { CallerContext, ErrorCode, DomainException, GetOrderQuery, ORDER_ID_PATTERN, RpcPatterns, WatermarkOrderView } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../auth/caller';

@ApiTags('orders (v3)')
@Controller('api/v3/orders')
export class OrdersController {
  constructor(private readonly rpc: RpcClient) {}

  @Get(':orderId')
  @ApiOperation({ summary: 'Get a watermark order (spec 4.3)' })
  async get(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<WatermarkOrderView> {
    if (!ORDER_ID_PATTERN.test(orderId)) {
      // Not an order id at all: there is no such order.
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const query: GetOrderQuery = { caller, orderId };
    return this.rpc.request<WatermarkOrderView>(RpcPatterns.ordersGet, query);
  }
}

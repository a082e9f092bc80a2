import { ExpireOrdersCommand, ExpireOrdersResult, Rpcs } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ExpireOrdersUseCase } from './expire-orders.use-case';

/** Called by the retention service; not reachable from the public API. */
@RpcHandlers()
@Controller()
export class ExpiryRpcController {
  constructor(private readonly expireOrders: ExpireOrdersUseCase) {}

  @MessagePattern(Rpcs.ordersExpire.pattern)
  expire(@Payload() command: ExpireOrdersCommand): Promise<ExpireOrdersResult> {
    return this.expireOrders.execute(command);
  }
}

import { ExpireOrdersCommand, ExpireOrdersResult, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { ExpireOrdersUseCase } from './expire-orders.use-case';

/** Called by the retention service; not reachable from the public API. */
@RpcHandlers()
@Controller()
export class ExpiryRpcController {
  constructor(private readonly expireOrders: ExpireOrdersUseCase) {}

  @RpcHandler(Rpcs.ordersExpire)
  expire(command: ExpireOrdersCommand): Promise<ExpireOrdersResult> {
    return this.expireOrders.execute(command);
  }
}

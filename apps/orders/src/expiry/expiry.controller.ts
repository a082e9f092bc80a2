import { ExpireOrdersCommand, ExpireOrdersResult, ExpirySchedulesPage, ExpirySchedulesQuery, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { ExpireOrdersUseCase } from './expire-orders.use-case';
import { ExpirySchedulesUseCase } from './expiry-schedules.use-case';

/** Called by the retention service; not reachable from the public API. */
@RpcHandlers()
@Controller()
export class ExpiryRpcController {
  constructor(
    private readonly expireOrders: ExpireOrdersUseCase,
    private readonly expirySchedules: ExpirySchedulesUseCase,
  ) {}

  @RpcHandler(Rpcs.ordersExpire)
  expire(command: ExpireOrdersCommand): Promise<ExpireOrdersResult> {
    return this.expireOrders.execute(command);
  }

  @RpcHandler(Rpcs.ordersExpirySchedules)
  schedules(query: ExpirySchedulesQuery): Promise<ExpirySchedulesPage> {
    return this.expirySchedules.execute(query);
  }
}

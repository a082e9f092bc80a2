import { ExpireOrdersCommand, ExpireOrdersResult, ExpirySchedulesPage, ExpirySchedulesQuery, FailedOrdersPage, FailedOrdersQuery, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { ExpireOrdersUseCase } from './expire-orders.use-case';
import { ExpirySchedulesUseCase } from './expiry-schedules.use-case';
import { FailedOrdersUseCase } from './failed-orders.use-case';

/** Called by the retention service; not reachable from the public API. */
@RpcHandlers()
@Controller()
export class ExpiryRpcController {
  constructor(
    private readonly expireOrders: ExpireOrdersUseCase,
    private readonly expirySchedules: ExpirySchedulesUseCase,
    private readonly failedOrders: FailedOrdersUseCase,
  ) {}

  @RpcHandler(Rpcs.ordersExpire)
  expire(command: ExpireOrdersCommand): Promise<ExpireOrdersResult> {
    return this.expireOrders.execute(command);
  }

  @RpcHandler(Rpcs.ordersExpirySchedules)
  schedules(query: ExpirySchedulesQuery): Promise<ExpirySchedulesPage> {
    return this.expirySchedules.execute(query);
  }

  @RpcHandler(Rpcs.ordersFailedOrders)
  failed(query: FailedOrdersQuery): Promise<FailedOrdersPage> {
    return this.failedOrders.execute(query);
  }
}

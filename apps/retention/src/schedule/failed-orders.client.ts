import { FailedOrdersPage, FailedOrdersQuery, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { OrdersPageClient, OrdersPagePort } from './orders-page.client';

/** Orders owns every order's `failedAt`: the reconciliation of failed orders reads them from it, a page at a time. */
export abstract class FailedOrdersPort extends OrdersPagePort<FailedOrdersQuery, FailedOrdersPage> {}

@Injectable()
export class FailedOrdersClient extends OrdersPageClient<FailedOrdersQuery, FailedOrdersPage> implements FailedOrdersPort {
  constructor(rpc: RpcClient) {
    super(rpc, Rpcs.ordersFailedOrders);
  }
}

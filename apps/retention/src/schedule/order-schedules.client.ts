import { ExpirySchedulesPage, ExpirySchedulesQuery, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { OrdersPageClient, OrdersPagePort } from './orders-page.client';

/** Orders owns every order's `expiresAt`: the reconciliation reads them from it, a page at a time. */
export abstract class OrderSchedulesPort extends OrdersPagePort<ExpirySchedulesQuery, ExpirySchedulesPage> {}

@Injectable()
export class OrderSchedulesClient extends OrdersPageClient<ExpirySchedulesQuery, ExpirySchedulesPage> implements OrderSchedulesPort {
  constructor(rpc: RpcClient) {
    super(rpc, Rpcs.ordersExpirySchedules);
  }
}

import { FailedOrdersPage, FailedOrdersQuery, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** Orders owns every order's `failedAt`: the reconciliation of failed orders reads them from it, a page at a time. */
export abstract class FailedOrdersPort {
  abstract page(query: FailedOrdersQuery): Promise<FailedOrdersPage>;
}

@Injectable()
export class FailedOrdersClient extends FailedOrdersPort {
  constructor(private readonly rpc: RpcClient) {
    super();
  }

  page(query: FailedOrdersQuery): Promise<FailedOrdersPage> {
    // One statement on orders' partial index; well within the lease the page is read under (RETENTION_LEASE_SECONDS ≥ 70).
    return this.rpc.request(Rpcs.ordersFailedOrders, query, 30_000);
  }
}

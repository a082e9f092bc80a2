import { ExpirySchedulesPage, ExpirySchedulesQuery, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** Orders owns every order's `expiresAt`: the reconciliation reads them from it, a page at a time. */
export abstract class OrderSchedulesPort {
  abstract page(query: ExpirySchedulesQuery): Promise<ExpirySchedulesPage>;
}

@Injectable()
export class OrderSchedulesClient extends OrderSchedulesPort {
  constructor(private readonly rpc: RpcClient) {
    super();
  }

  page(query: ExpirySchedulesQuery): Promise<ExpirySchedulesPage> {
    // One indexed statement on orders' side; well within the lease the page is read under (RETENTION_LEASE_SECONDS ≥ 70).
    return this.rpc.request(Rpcs.ordersExpirySchedules, query, 30_000);
  }
}

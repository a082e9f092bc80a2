import { ExpireOrdersCommand, ExpireOrdersResult, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** Orders owns order state: it marks orders expired (and drops their object keys) when asked. */
export abstract class OrdersExpiryPort {
  abstract expire(orderIds: string[]): Promise<ExpireOrdersResult>;
}

@Injectable()
export class OrdersExpiryClient extends OrdersExpiryPort {
  constructor(private readonly rpc: RpcClient) {
    super();
  }

  expire(orderIds: string[]): Promise<ExpireOrdersResult> {
    const command: ExpireOrdersCommand = { orderIds };
    return this.rpc.request(Rpcs.ordersExpire, command, 60_000);
  }
}

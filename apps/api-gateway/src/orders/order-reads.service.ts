import { GetOrderQuery, ORDER_READS_PER_BATCH, Rpcs, WatermarkOrderView } from '@cp/contracts';
import { RpcBatcher, RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/**
 * `GET /api/v3/orders/{id}`, the API's hottest route (issue 19): the reads this replica receives in one turn of
 * the event loop go to the orders service as one `orders.getMany` (one NATS message, one statement, one reply).
 */
@Injectable()
export class OrderReadsService {
  private readonly batcher: RpcBatcher<GetOrderQuery, WatermarkOrderView>;

  constructor(rpc: RpcClient) {
    this.batcher = new RpcBatcher(rpc, Rpcs.ordersGetMany, Rpcs.ordersGet, ORDER_READS_PER_BATCH);
  }

  get(query: GetOrderQuery): Promise<WatermarkOrderView> {
    return this.batcher.request(query);
  }
}

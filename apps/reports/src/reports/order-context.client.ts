import { CallerContext, ReportContextQuery, ReportContextView, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Injectable } from '@nestjs/common';

/** The orders service's view of one of the caller's orders (RESOURCE_NOT_FOUND for unknown or foreign ones). */
@Injectable()
export class OrderContextClient {
  constructor(private readonly rpc: RpcClient) {}

  get(caller: CallerContext, orderId: string): Promise<ReportContextView> {
    const query: ReportContextQuery = { caller, orderId };
    return this.rpc.request(Rpcs.ordersReportContext, query);
  }
}

import { BatchResults, DownloadQuery, DownloadView, GetOrderQuery, GetOrdersQuery, ReportContextQuery, ReportContextView, Rpcs, WatermarkOrderView } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { DownloadsService } from '../downloads/downloads.service';
import { ReportContextService } from '../reports/report-context.service';
import { OrdersQueryService } from './orders-query.service';

/** Operations every order type shares (creation endpoints live in each type's folder). */
@RpcHandlers()
@Controller()
export class OrdersRpcController {
  constructor(
    private readonly queries: OrdersQueryService,
    private readonly downloads: DownloadsService,
    private readonly reportContexts: ReportContextService,
  ) {}

  /** Single reads: what gateways before `orders.getMany` send, kept so that either can be deployed first. */
  @RpcHandler(Rpcs.ordersGet)
  get(query: GetOrderQuery): Promise<WatermarkOrderView> {
    return this.queries.get(query.caller, query.orderId);
  }

  @RpcHandler(Rpcs.ordersGetMany)
  getMany(query: GetOrdersQuery): Promise<BatchResults<WatermarkOrderView>> {
    return this.queries.getMany(query.items);
  }

  @RpcHandler(Rpcs.ordersReportContext)
  reportContext(query: ReportContextQuery): Promise<ReportContextView> {
    return this.reportContexts.get(query);
  }

  @RpcHandler(Rpcs.ordersDownload)
  download(query: DownloadQuery): Promise<DownloadView> {
    return this.downloads.download(query);
  }
}

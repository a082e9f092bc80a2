import { BatchResults, DownloadQuery, DownloadView, GetOrderQuery, GetOrdersQuery, ReportContextQuery, ReportContextView, Rpcs, WatermarkOrderView } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
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
  @MessagePattern(Rpcs.ordersGet.pattern)
  get(@Payload() query: GetOrderQuery): Promise<WatermarkOrderView> {
    return this.queries.get(query.caller, query.orderId);
  }

  @MessagePattern(Rpcs.ordersGetMany.pattern)
  getMany(@Payload() query: GetOrdersQuery): Promise<BatchResults<WatermarkOrderView>> {
    return this.queries.getMany(query.items);
  }

  @MessagePattern(Rpcs.ordersReportContext.pattern)
  reportContext(@Payload() query: ReportContextQuery): Promise<ReportContextView> {
    return this.reportContexts.get(query);
  }

  @MessagePattern(Rpcs.ordersDownload.pattern)
  download(@Payload() query: DownloadQuery): Promise<DownloadView> {
    return this.downloads.download(query);
  }
}

import {
  CreateEmbedOrderCommand,
  CreateExtractOrderCommand,
  DownloadQuery,
  DownloadView,
  GetOrderQuery,
  ReportContextQuery,
  ReportContextView,
  RpcPatterns,
  WatermarkOrderView,
} from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DownloadsService } from '../downloads/downloads.service';
import { ReportContextService } from '../reports/report-context.service';
import { CreateEmbedOrderUseCase } from './create-embed-order.use-case';
import { CreateExtractOrderUseCase } from './create-extract-order.use-case';
import { OrdersQueryService } from './orders-query.service';

@RpcHandlers()
@Controller()
export class OrdersRpcController {
  constructor(
    private readonly queries: OrdersQueryService,
    private readonly createEmbedOrder: CreateEmbedOrderUseCase,
    private readonly createExtractOrder: CreateExtractOrderUseCase,
    private readonly downloads: DownloadsService,
    private readonly reportContexts: ReportContextService,
  ) {}

  @MessagePattern(RpcPatterns.ordersGet)
  get(@Payload() query: GetOrderQuery): Promise<WatermarkOrderView> {
    return this.queries.get(query.caller, query.orderId);
  }

  @MessagePattern(RpcPatterns.ordersCreateEmbed)
  createEmbed(@Payload() command: CreateEmbedOrderCommand): Promise<WatermarkOrderView> {
    return this.createEmbedOrder.execute(command);
  }

  @MessagePattern(RpcPatterns.ordersCreateExtract)
  createExtract(@Payload() command: CreateExtractOrderCommand): Promise<WatermarkOrderView> {
    return this.createExtractOrder.execute(command);
  }

  @MessagePattern(RpcPatterns.ordersReportContext)
  reportContext(@Payload() query: ReportContextQuery): Promise<ReportContextView> {
    return this.reportContexts.get(query);
  }

  @MessagePattern(RpcPatterns.ordersDownload)
  download(@Payload() query: DownloadQuery): Promise<DownloadView> {
    return this.downloads.download(query);
  }
}

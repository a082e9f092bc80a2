import {
  CreateV2EmbedOrderCommand,
  CreateV2ExtractOrderCommand,
  RpcPatterns,
  V2DownloadUrlsView,
  V2EmbedOrderCreatedView,
  V2ExtractOrderCreatedView,
  V2OrderDetailView,
  V2OrderQuery,
  V2RecentStatsQuery,
  V2RecentStatsView,
  V2RefreshUrlsView,
} from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateV2EmbedOrderUseCase } from './create-v2-embed-order.use-case';
import { CreateV2ExtractOrderUseCase } from './create-v2-extract-order.use-case';
import { RefreshUploadUrlsUseCase } from './refresh-upload-urls.use-case';
import { V2DownloadsService } from './v2-downloads.service';
import { V2OrdersQueryService } from './v2-orders-query.service';

/** The deprecated v2 order operations (the gateway adds the Deprecation/Sunset headers and the 410). */
@RpcHandlers()
@Controller()
export class V2OrdersRpcController {
  constructor(
    private readonly createEmbed: CreateV2EmbedOrderUseCase,
    private readonly createExtract: CreateV2ExtractOrderUseCase,
    private readonly queries: V2OrdersQueryService,
    private readonly refreshUploadUrls: RefreshUploadUrlsUseCase,
    private readonly downloads: V2DownloadsService,
  ) {}

  @MessagePattern(RpcPatterns.ordersV2CreateEmbed)
  embed(@Payload() command: CreateV2EmbedOrderCommand): Promise<V2EmbedOrderCreatedView> {
    return this.createEmbed.execute(command);
  }

  @MessagePattern(RpcPatterns.ordersV2CreateExtract)
  extract(@Payload() command: CreateV2ExtractOrderCommand): Promise<V2ExtractOrderCreatedView> {
    return this.createExtract.execute(command);
  }

  @MessagePattern(RpcPatterns.ordersV2Get)
  get(@Payload() query: V2OrderQuery): Promise<V2OrderDetailView> {
    return this.queries.detail(query);
  }

  @MessagePattern(RpcPatterns.ordersV2StatsRecent)
  statsRecent(@Payload() query: V2RecentStatsQuery): Promise<V2RecentStatsView> {
    return this.queries.recentStats(query);
  }

  @MessagePattern(RpcPatterns.ordersV2RefreshUrls)
  refreshUrls(@Payload() query: V2OrderQuery): Promise<V2RefreshUrlsView> {
    return this.refreshUploadUrls.execute(query);
  }

  @MessagePattern(RpcPatterns.ordersV2DownloadUrls)
  downloadUrls(@Payload() query: V2OrderQuery): Promise<V2DownloadUrlsView> {
    return this.downloads.downloadUrls(query);
  }
}

import {
  Rpcs,
  V2DownloadUrlsView,
  V2OrderDetailView,
  V2OrderQuery,
  V2RecentStatsQuery,
  V2RecentStatsView,
  V2RefreshUrlsView,
} from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { RefreshUploadUrlsUseCase } from './refresh-upload-urls.use-case';
import { V2DownloadsService } from './v2-downloads.service';
import { V2OrdersQueryService } from './v2-orders-query.service';

/** The deprecated v2 reads and URL operations (v2 creation endpoints live in the order types' folders) (the gateway adds the Deprecation/Sunset headers and the 410). */
@RpcHandlers()
@Controller()
export class V2OrdersRpcController {
  constructor(
    private readonly queries: V2OrdersQueryService,
    private readonly refreshUploadUrls: RefreshUploadUrlsUseCase,
    private readonly downloads: V2DownloadsService,
  ) {}

  @RpcHandler(Rpcs.ordersV2Get)
  get(query: V2OrderQuery): Promise<V2OrderDetailView> {
    return this.queries.detail(query);
  }

  @RpcHandler(Rpcs.ordersV2StatsRecent)
  statsRecent(query: V2RecentStatsQuery): Promise<V2RecentStatsView> {
    return this.queries.recentStats(query);
  }

  @RpcHandler(Rpcs.ordersV2RefreshUrls)
  refreshUrls(query: V2OrderQuery): Promise<V2RefreshUrlsView> {
    return this.refreshUploadUrls.execute(query);
  }

  @RpcHandler(Rpcs.ordersV2DownloadUrls)
  downloadUrls(query: V2OrderQuery): Promise<V2DownloadUrlsView> {
    return this.downloads.downloadUrls(query);
  }
}

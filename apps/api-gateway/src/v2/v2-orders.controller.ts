import {
  CallerContext,
  ErrorCode,
  ORDER_ID_PATTERN,
  Rpcs,
  V2DownloadUrlsView,
  V2OrderDetailView,
  V2OrderQuery,
  V2RecentStatsParams,
  V2RecentStatsQuery,
  V2RecentStatsView,
  V2RefreshUrlsView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Controller, Get, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, ORDER_ID_PARAM } from '../http/api-responses.decorator';
import { Caller } from '../auth/caller';
import { NoBody } from '../http/no-body.decorator';
import { pathId } from '../http/path-id';
import { DeprecatedRoute } from './deprecated-route.guard';
import { V2OrderLinkInterceptor } from './v2-order-link.interceptor';
import { data, DataEnvelope } from '../http/data-envelope';

/**
 * The deprecated v2 order routes every type shares (creation routes: `order-types/<type>/`): thin HTTP layer
 * over the orders service. `stats/recent` is declared before `:orderId` so the literal segment wins.
 */
@ApiTags('orders (v2, deprecated)')
@Controller('api/v2/orders')
export class V2OrdersController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('stats/recent')
  @ApiOperation({ operationId: 'getV2RecentStats', summary: 'Orders per day over the last 7 days, with chart domain and ticks (spec 4.13)' })
  @ApiData('V2RecentStats', { description: 'usage of the 7 days ending on `date`' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED)
  statsRecent(@Caller() caller: CallerContext, @Query() params: V2RecentStatsParams): Promise<DataEnvelope<V2RecentStatsView>> {
    const query: V2RecentStatsQuery = { caller, ...(params.date ? { date: params.date } : {}) };
    return data(this.rpc.request(Rpcs.ordersV2StatsRecent, query));
  }

  @Get(':orderId')
  @DeprecatedRoute({ sunset: false, successor: null })
  @UseInterceptors(V2OrderLinkInterceptor)
  @ApiOperation({ operationId: 'getV2Order', summary: 'v2 order detail (spec 2.7, 4.11)', description: 'Deprecated: use `GET /api/v3/orders/{orderId}`.', deprecated: true })
  @ApiParam(ORDER_ID_PARAM)
  @ApiData('V2OrderDetail', { description: 'the order detail' })
  @ApiErrors(ErrorCode.RESOURCE_NOT_FOUND)
  get(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<DataEnvelope<V2OrderDetailView>> {
    const query: V2OrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND) };
    return data(this.rpc.request(Rpcs.ordersV2Get, query));
  }

  @Post(':orderId/refresh-urls')
  @HttpCode(200)
  @ApiOperation({ operationId: 'refreshV2UploadUrls', summary: 'New upload URLs valid 1 hour for a pending order (spec 4.12)' })
  @ApiParam(ORDER_ID_PARAM)
  @ApiData('V2RefreshUrls', { description: 'new upload URLs' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  refreshUrls(@Caller() caller: CallerContext, @Param('orderId') orderId: string, @NoBody() _body: undefined): Promise<DataEnvelope<V2RefreshUrlsView>> {
    const query: V2OrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.WEBHOOK_NOT_FOUND) };
    return data(this.rpc.request(Rpcs.ordersV2RefreshUrls, query));
  }

  @Get(':orderId/download-urls')
  @ApiOperation({ operationId: 'getV2DownloadUrls', summary: 'Result URLs per output file and a ZIP archiveUrl, valid up to 1 hour (spec 4.17)' })
  @ApiParam(ORDER_ID_PARAM)
  @ApiData('V2DownloadUrls', { description: 'presigned result URLs' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_EXPIRED, ErrorCode.RESOURCE_NOT_FOUND)
  downloadUrls(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<DataEnvelope<V2DownloadUrlsView>> {
    const query: V2OrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED) };
    return data(this.rpc.request(Rpcs.ordersV2DownloadUrls, query));
  }
}

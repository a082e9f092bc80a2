import {
  CallerContext,
  CreateV2EmbedOrderCommand,
  CreateV2EmbedOrderDto,
  CreateV2ExtractOrderCommand,
  CreateV2ExtractOrderDto,
  ErrorCode,
  ORDER_ID_PATTERN,
  RpcPatterns,
  V2DownloadUrlsView,
  V2EmbedOrderCreatedView,
  V2ExtractOrderCreatedView,
  V2OrderDetailView,
  V2OrderQuery,
  V2RecentStatsParams,
  V2RecentStatsQuery,
  V2RecentStatsView,
  V2RefreshUrlsView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Get, HttpCode, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';
import { V2DeprecatedInterceptor, V2SunsetInterceptor } from './v2-deprecation.interceptor';

/**
 * The deprecated v2 order routes: thin HTTP layer over the orders service. `stats/recent` is declared
 * before `:orderId` so the literal segment wins.
 */
@ApiTags('orders (v2, deprecated)')
@Controller('api/v2/orders')
export class V2OrdersController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('wtr-embed')
  @HttpCode(200)
  @UseInterceptors(V2SunsetInterceptor)
  @ApiOperation({ summary: 'Create a watermark embed order, v2 shape (spec 4.9); retired 2026-10-09T00:00:00Z (410)', deprecated: true })
  createEmbed(@Caller() caller: CallerContext, @Body() request: CreateV2EmbedOrderDto): Promise<V2EmbedOrderCreatedView> {
    const command: CreateV2EmbedOrderCommand = { caller, request };
    return this.rpc.request<V2EmbedOrderCreatedView>(RpcPatterns.ordersV2CreateEmbed, command);
  }

  @Post('wtr-extract')
  @HttpCode(200)
  @UseInterceptors(V2SunsetInterceptor)
  @ApiOperation({ summary: 'Create a watermark extract order, v2 shape (spec 4.10); retired 2026-10-09T00:00:00Z (410)', deprecated: true })
  createExtract(@Caller() caller: CallerContext, @Body() request: CreateV2ExtractOrderDto): Promise<V2ExtractOrderCreatedView> {
    const command: CreateV2ExtractOrderCommand = { caller, request };
    return this.rpc.request<V2ExtractOrderCreatedView>(RpcPatterns.ordersV2CreateExtract, command);
  }

  @Get('stats/recent')
  @ApiOperation({ summary: 'Orders per day over the last 7 days, with chart domain and ticks (spec 4.13)' })
  statsRecent(@Caller() caller: CallerContext, @Query() params: V2RecentStatsParams): Promise<V2RecentStatsView> {
    const query: V2RecentStatsQuery = { caller, ...(params.date ? { date: params.date } : {}) };
    return this.rpc.request<V2RecentStatsView>(RpcPatterns.ordersV2StatsRecent, query);
  }

  @Get(':orderId')
  @UseInterceptors(V2DeprecatedInterceptor)
  @ApiOperation({ summary: 'v2 order detail (spec 2.7, 4.11); use GET /api/v3/orders/{orderId}', deprecated: true })
  get(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<V2OrderDetailView> {
    const query: V2OrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND) };
    return this.rpc.request<V2OrderDetailView>(RpcPatterns.ordersV2Get, query);
  }

  @Post(':orderId/refresh-urls')
  @HttpCode(200)
  @ApiOperation({ summary: 'New upload URLs valid 1 hour for a pending order (spec 4.12)' })
  refreshUrls(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<V2RefreshUrlsView> {
    const query: V2OrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.WEBHOOK_NOT_FOUND) };
    return this.rpc.request<V2RefreshUrlsView>(RpcPatterns.ordersV2RefreshUrls, query);
  }

  @Get(':orderId/download-urls')
  @ApiOperation({ summary: 'Result URLs per output file and a ZIP archiveUrl, valid up to 1 hour (spec 4.17)' })
  downloadUrls(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<V2DownloadUrlsView> {
    const query: V2OrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED) };
    return this.rpc.request<V2DownloadUrlsView>(RpcPatterns.ordersV2DownloadUrls, query);
  }
}

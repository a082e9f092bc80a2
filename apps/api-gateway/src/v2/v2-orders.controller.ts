import {
  AiDetectionConfirmView,
  AiDetectionOrderCreatedView,
  AntiAiOrderCreatedView,
  ConfirmAiDetectionOrderCommand,
  ConfirmAiDetectionOrderDto,
  CreateAiDetectionOrderCommand,
  CreateAiDetectionOrderDto,
  AntiAiWithUrlsCreatedView,
  CallerContext,
  CreateAntiAiOrderCommand,
  CreateAntiAiOrderDto,
  CreateAntiAiWithUrlsCommand,
  CreateAntiAiWithUrlsDto,
  CreateV2EmbedOrderCommand,
  CreateV2EmbedOrderDto,
  CreateV2ExtractOrderCommand,
  CreateV2ExtractOrderDto,
  ErrorCode,
  ORDER_ID_PATTERN,
  Rpcs,
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
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors } from '../openapi/api-responses.decorator';
import { ORDER_ID_PARAM } from '../orders/orders.controller';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';
import { V2DeprecatedInterceptor, V2SunsetInterceptor } from './v2-deprecation.interceptor';
import { data, DataEnvelope } from '../http/data-envelope';

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
  @ApiOperation({
    operationId: 'createV2EmbedOrder',
    summary: 'Create a watermark embed order, v2 shape (spec 4.9; retired)',
    description: 'Retired at 2026-10-09T00:00:00Z: authenticated calls now get 410 `WATERMARK_V2_API_SUNSET` with a `Link` header to the v3 endpoint. Use `POST /api/v3/orders/wtr-embed`.',
    deprecated: true,
  })
  @ApiBody({ type: CreateV2EmbedOrderDto, examples: { one: { value: { idempotencyKey: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', files: [{ fileName: 'photo.jpg', watermarks: [{ text: 'alice' }] }] } } } })
  @ApiData('V2EmbedOrderCreated', { description: 'the order (before the retirement)' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_API_SUNSET)
  createEmbed(@Caller() caller: CallerContext, @Body() request: CreateV2EmbedOrderDto): Promise<DataEnvelope<V2EmbedOrderCreatedView>> {
    const command: CreateV2EmbedOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersV2CreateEmbed, command));
  }

  @Post('wtr-extract')
  @HttpCode(200)
  @UseInterceptors(V2SunsetInterceptor)
  @ApiOperation({
    operationId: 'createV2ExtractOrder',
    summary: 'Create a watermark extract order, v2 shape (spec 4.10; retired)',
    description: 'Retired at 2026-10-09T00:00:00Z: authenticated calls now get 410 `WATERMARK_V2_API_SUNSET`. Use `POST /api/v3/orders/wtr-extract`.',
    deprecated: true,
  })
  @ApiBody({ type: CreateV2ExtractOrderDto, examples: { one: { value: { idempotencyKey: '0f5d7c3a-8a43-4d0e-a7f5-3b0e1c7d9a21', file: { fileName: 'leaked.jpg' }, includeOriginal: true } } } })
  @ApiData('V2ExtractOrderCreated', { description: 'the order (before the retirement)' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_API_SUNSET)
  createExtract(@Caller() caller: CallerContext, @Body() request: CreateV2ExtractOrderDto): Promise<DataEnvelope<V2ExtractOrderCreatedView>> {
    const command: CreateV2ExtractOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersV2CreateExtract, command));
  }

  @Post('ai-detection')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createAiDetectionOrder',
    summary: 'Create an AI detection order (docs/ai-detection.md): upload the images, then confirm',
    description:
      'Files by upload (an `uploadUrl` each) or by `originalFileUrl`. Nothing is analysed until `POST /api/v2/orders/ai-detection/confirm`. 1 credit per image. The probability is a documented fusion of checkable evidence (C2PA, declared metadata, the Stable Diffusion invisible mark, an optional classifier), never a bare model score.',
  })
  @ApiBody({ type: CreateAiDetectionOrderDto, examples: { one: { value: { idempotencyKey: '5e2a7c10-3f4b-4c6d-8e9f-0a1b2c3d4e5f', files: [{ fileName: 'photo.jpg' }], options: { generateHeatmap: true } } } } })
  @ApiData('AiDetectionOrderCreated', { description: 'the order, pending until confirmed' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT)
  createAiDetection(@Caller() caller: CallerContext, @Body() request: CreateAiDetectionOrderDto): Promise<DataEnvelope<AiDetectionOrderCreatedView>> {
    const command: CreateAiDetectionOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateAiDetection, command));
  }

  @Post('ai-detection/confirm')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'confirmAiDetectionOrder',
    summary: 'Start the analysis of an AI detection order (spec 4.15)',
    description: 'Every image must be uploaded first (else 400 `VALIDATION_FAILED`, nothing recorded). Repeating the idempotency key returns the current state without reprocessing.',
  })
  @ApiBody({ type: ConfirmAiDetectionOrderDto, examples: { one: { value: { idempotencyKey: 'c0ffee00-1b9a-4f43-9a4c-0f0b2f3c2d11', orderId: '46' } } } })
  @ApiData('AiDetectionConfirm', { description: 'the order and its status (`inProgress` once started)' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.ORDER_EXPIRED, ErrorCode.WATERMARK_V2_CONFLICT)
  confirmAiDetection(@Caller() caller: CallerContext, @Body() request: ConfirmAiDetectionOrderDto): Promise<DataEnvelope<AiDetectionConfirmView>> {
    // The body's id is checked like a path id: of the spec's pattern but beyond a 64-bit integer, it names no order (404), never a 500.
    pathId(request.orderId, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND);
    const command: ConfirmAiDetectionOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersConfirmAiDetection, command));
  }

  @Post('anti-ai')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createAntiAiOrder',
    summary: 'Create an anti-AI order: opt-out metadata, Content Credentials, opt-out watermark by strength (docs/anti-ai.md)',
    description:
      'Files by upload (an `uploadUrl` each) or by `originalFileUrl`; processing starts once every file is in. `mode.zeroCopy` PUTs each result to the client\'s presigned `outputTargets[].url` (matched by `fileKey` = file name) and keeps nothing. 1 credit per image.',
  })
  @ApiBody({ type: CreateAntiAiOrderDto, examples: { one: { value: { idempotencyKey: '1b0c6f1e-5c2a-4d7e-9b51-7a0f3e9d2c44', orderName: 'spring-catalogue', files: [{ fileName: 'photo.jpg' }], options: { strength: 'medium' } } } } })
  @ApiData('AntiAiOrderCreated', { description: 'the order' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT)
  createAntiAi(@Caller() caller: CallerContext, @Body() request: CreateAntiAiOrderDto): Promise<DataEnvelope<AntiAiOrderCreatedView>> {
    const command: CreateAntiAiOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateAntiAi, command));
  }

  @Post('anti-ai/with-urls')
  @HttpCode(200)
  @UseInterceptors(V2DeprecatedInterceptor)
  @ApiOperation({
    operationId: 'createAntiAiOrderWithUrls',
    summary: 'Create an anti-AI order from image URLs (spec 4.14; deprecated)',
    description: 'Deprecated: use `POST /api/v2/orders/anti-ai` with `originalFileUrl`. Processing starts at once (`inProgress`); no upload URLs.',
    deprecated: true,
  })
  @ApiBody({ type: CreateAntiAiWithUrlsDto, examples: { one: { value: { idempotencyKey: '9d2c7a31-0e44-4b8e-8f2d-5a1c6b3e7f90', files: [{ fileName: 'photo.jpg', imageUrl: 'https://images.example.com/photo.jpg' }], options: { strength: 'high' } } } } })
  @ApiData('AntiAiWithUrlsCreated', { description: 'the order, already in progress' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT)
  createAntiAiWithUrls(@Caller() caller: CallerContext, @Body() request: CreateAntiAiWithUrlsDto): Promise<DataEnvelope<AntiAiWithUrlsCreatedView>> {
    const command: CreateAntiAiWithUrlsCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateAntiAiWithUrls, command));
  }

  @Get('stats/recent')
  @ApiOperation({ operationId: 'getV2RecentStats', summary: 'Orders per day over the last 7 days, with chart domain and ticks (spec 4.13)' })
  @ApiData('V2RecentStats', { description: 'usage of the 7 days ending on `date`' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED)
  statsRecent(@Caller() caller: CallerContext, @Query() params: V2RecentStatsParams): Promise<DataEnvelope<V2RecentStatsView>> {
    const query: V2RecentStatsQuery = { caller, ...(params.date ? { date: params.date } : {}) };
    return data(this.rpc.request(Rpcs.ordersV2StatsRecent, query));
  }

  @Get(':orderId')
  @UseInterceptors(V2DeprecatedInterceptor)
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
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND)
  refreshUrls(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<DataEnvelope<V2RefreshUrlsView>> {
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

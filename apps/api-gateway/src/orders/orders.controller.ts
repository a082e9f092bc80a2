import {
  CallerContext,
  CreateEmbedOrderCommand,
  CreateEmbedOrderDto,
  CreateExtractOrderCommand,
  CreateExtractOrderDto,
  DownloadQuery,
  DownloadView,
  ErrorCode,
  GetOrderQuery,
  ORDER_ID_PATTERN,
  OUTPUT_FILE_ID_PATTERN,
  RpcPatterns,
  WatermarkOrderView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';

/** v3 watermark orders: thin HTTP layer; the orders service holds the rules. */
@ApiTags('orders (v3)')
@Controller('api/v3/orders')
export class OrdersController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('wtr-embed')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a watermark embed order (spec 4.1)' })
  createEmbed(@Caller() caller: CallerContext, @Body() request: CreateEmbedOrderDto): Promise<WatermarkOrderView> {
    const command: CreateEmbedOrderCommand = { caller, request };
    return this.rpc.request<WatermarkOrderView>(RpcPatterns.ordersCreateEmbed, command);
  }

  @Post('wtr-extract')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a watermark extract order (spec 4.2): files[0] original, files[1] the file to inspect' })
  createExtract(@Caller() caller: CallerContext, @Body() request: CreateExtractOrderDto): Promise<WatermarkOrderView> {
    const command: CreateExtractOrderCommand = { caller, request };
    return this.rpc.request<WatermarkOrderView>(RpcPatterns.ordersCreateExtract, command);
  }

  @Get(':orderId')
  @ApiOperation({ summary: 'Get a watermark order (spec 4.3)' })
  get(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<WatermarkOrderView> {
    // Not an order id at all: there is no such order.
    const query: GetOrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND) };
    return this.rpc.request<WatermarkOrderView>(RpcPatterns.ordersGet, query);
  }

  @Get(':orderId/download')
  @ApiOperation({ summary: 'Download URL for the results of a completed embed order (spec 4.4)' })
  download(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<DownloadView> {
    const query: DownloadQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED) };
    return this.rpc.request<DownloadView>(RpcPatterns.ordersDownload, query);
  }

  @Get(':orderId/files/:fileId/download')
  @ApiOperation({ summary: 'Download URL for one output of a completed embed order (spec 4.5)' })
  downloadOutput(@Caller() caller: CallerContext, @Param('orderId') orderId: string, @Param('fileId') fileId: string): Promise<DownloadView> {
    const query: DownloadQuery = {
      caller,
      orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED),
      outputFileId: pathId(fileId, OUTPUT_FILE_ID_PATTERN, ErrorCode.VALIDATION_FAILED),
    };
    return this.rpc.request<DownloadView>(RpcPatterns.ordersDownload, query);
  }
}

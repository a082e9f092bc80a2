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
  Rpcs,
  WatermarkOrderView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors } from '../openapi/api-responses.decorator';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';
import { OrderReadsService } from './order-reads.service';
import { data, DataEnvelope } from '../http/data-envelope';

const EMBED_EXAMPLE = {
  idempotencyKey: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11',
  files: [
    { fileName: 'photo.jpg', watermarks: [{ text: 'alice' }, { text: 'bob' }] },
    { fileName: 'contract.pdf', originalFileUrl: 'https://example.com/contract.pdf', watermarks: [{ text: 'alice' }] },
  ],
};
const EXTRACT_EXAMPLE = { idempotencyKey: '0f5d7c3a-8a43-4d0e-a7f5-3b0e1c7d9a21', file: { fileName: 'leaked.jpg', originalFile: { fileName: 'photo.jpg' } } };
export const ORDER_ID_PARAM = { name: 'orderId', schema: { type: 'string', pattern: '^[0-9]{1,20}$' }, example: '42' } as const;

/** v3 watermark orders: thin HTTP layer; the orders service holds the rules. */
@ApiTags('orders (v3)')
@Controller('api/v3/orders')
export class OrdersController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly reads: OrderReadsService,
  ) {}

  @Post('wtr-embed')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createEmbedOrder',
    summary: 'Create a watermark embed order (spec 4.1)',
    description:
      'Images and PDFs, mixed allowed. Each watermark text gives its own output and uses 1 credit. PUT every file without `originalFileUrl` to its `uploadUrl` (valid 900 s); processing starts when all are uploaded. The same `idempotencyKey` with the same body returns the existing order with 200.',
  })
  @ApiBody({ type: CreateEmbedOrderDto, examples: { twoRecipients: { value: EMBED_EXAMPLE } } })
  @ApiData('WatermarkOrder', { description: 'the order, `pending`, with one upload slot per file and one output per text' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT, ErrorCode.PAYLOAD_TOO_LARGE)
  createEmbed(@Caller() caller: CallerContext, @Body() request: CreateEmbedOrderDto): Promise<DataEnvelope<WatermarkOrderView>> {
    const command: CreateEmbedOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateEmbed, command));
  }

  @Post('wtr-extract')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createExtractOrder',
    summary: 'Create a watermark extract order (spec 4.2)',
    description:
      'Checks one file for an invisible watermark, given the original. `files[0]` is the original, `files[1]` the file to inspect; PUT both to their `uploadUrl`. Uses 1 credit; `unsupported` and `error` results are refunded. Read the outcome from `result` of the order.',
  })
  @ApiBody({ type: CreateExtractOrderDto, examples: { leakedCopy: { value: EXTRACT_EXAMPLE } } })
  @ApiData('WatermarkOrder', { description: 'the order, `pending`, with two upload slots and no outputs' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT, ErrorCode.PAYLOAD_TOO_LARGE)
  createExtract(@Caller() caller: CallerContext, @Body() request: CreateExtractOrderDto): Promise<DataEnvelope<WatermarkOrderView>> {
    const command: CreateExtractOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateExtract, command));
  }

  @Get(':orderId')
  @ApiOperation({ operationId: 'getOrder', summary: 'Get a watermark order (spec 4.3)', description: 'Poll until `status` is `complete` or `failed`.' })
  @ApiParam(ORDER_ID_PARAM)
  @ApiData('WatermarkOrder', { description: 'the order' })
  @ApiErrors(ErrorCode.RESOURCE_NOT_FOUND)
  get(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<DataEnvelope<WatermarkOrderView>> {
    // Not an order id at all: there is no such order.
    const query: GetOrderQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND) };
    return data(this.reads.get(query));
  }

  @Get(':orderId/download')
  @ApiOperation({
    operationId: 'getOrderDownload',
    summary: 'Download URL for the results of a completed embed order (spec 4.4)',
    description:
      'One output gives that file; two or more give a ZIP `<orderId>-watermarked.zip` of files named `<original name>-watermarked-<output fileId>.<extension>`. The URL is valid 300 seconds; call again for a new one.',
  })
  @ApiParam(ORDER_ID_PARAM)
  @ApiData('Download', { description: 'a presigned URL valid 300 seconds' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_EXPIRED, ErrorCode.RESOURCE_NOT_FOUND)
  download(@Caller() caller: CallerContext, @Param('orderId') orderId: string): Promise<DataEnvelope<DownloadView>> {
    const query: DownloadQuery = { caller, orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED) };
    return data(this.rpc.request(Rpcs.ordersDownload, query));
  }

  @Get(':orderId/files/:fileId/download')
  @ApiOperation({ operationId: 'getOutputDownload', summary: 'Download URL for one output of a completed embed order (spec 4.5)' })
  @ApiParam(ORDER_ID_PARAM)
  @ApiParam({ name: 'fileId', description: 'an `outputs[].fileId`', schema: { type: 'string', pattern: '^[0-9]+-[0-9]+$' }, example: '1001-0' })
  @ApiData('Download', { description: 'a presigned URL valid 300 seconds' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_EXPIRED, ErrorCode.RESOURCE_NOT_FOUND)
  downloadOutput(@Caller() caller: CallerContext, @Param('orderId') orderId: string, @Param('fileId') fileId: string): Promise<DataEnvelope<DownloadView>> {
    const query: DownloadQuery = {
      caller,
      orderId: pathId(orderId, ORDER_ID_PATTERN, ErrorCode.VALIDATION_FAILED),
      outputFileId: pathId(fileId, OUTPUT_FILE_ID_PATTERN, ErrorCode.VALIDATION_FAILED),
    };
    return data(this.rpc.request(Rpcs.ordersDownload, query));
  }
}

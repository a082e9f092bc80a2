import {
  CallerContext,
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
import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, ORDER_ID_PARAM } from '../http/api-responses.decorator';
import { Caller } from '../auth/caller';
import { pathId } from '../http/path-id';
import { OrderReadsService } from './order-reads.service';
import { data, DataEnvelope } from '../http/data-envelope';


/** v3 order reads and downloads of every type: thin HTTP layer; the orders service holds the rules (creation routes: `order-types/<type>/`). */
@ApiTags('orders (v3)')
@Controller('api/v3/orders')
export class OrdersController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly reads: OrderReadsService,
  ) {}

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
  @ApiParam({ name: 'fileId', description: 'an `outputs[].fileId`', schema: { type: 'string', pattern: '^[0-9]+-[0-9]+$' }, example: '1001-1' })
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

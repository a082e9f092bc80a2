import {
  CallerContext,
  CreateExtractOrderCommand,
  CreateExtractOrderDto,
  CreateV2ExtractOrderCommand,
  CreateV2ExtractOrderDto,
  ErrorCode,
  Rpcs,
  V2ExtractOrderCreatedView,
  WatermarkOrderView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../auth/caller';
import { ApiData, ApiErrors } from '../../http/api-responses.decorator';
import { data, DataEnvelope } from '../../http/data-envelope';
import { DeprecatedRoute } from '../../v2/deprecated-route.guard';

const EXTRACT_EXAMPLE = { idempotencyKey: '0f5d7c3a-8a43-4d0e-a7f5-3b0e1c7d9a21', file: { fileName: 'leaked.jpg', originalFile: { fileName: 'photo.jpg' } } };

/**
 * Watermark extract orders (spec 4.2, and the retired v2 endpoint of spec 4.10): thin HTTP layer over the orders
 * service (the rules are there, in the type's folder). Each route keeps the tag of its API version.
 */
@Controller('api')
export class WatermarkExtractController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('v3/orders/wtr-extract')
  @HttpCode(200)
  @ApiTags('orders (v3)')
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

  @Post('v2/orders/wtr-extract')
  @HttpCode(200)
  @ApiTags('orders (v2, deprecated)')
  @DeprecatedRoute({ sunset: true, successor: '/api/v3/orders/wtr-extract' })
  @ApiOperation({
    operationId: 'createV2ExtractOrder',
    summary: 'Create a watermark extract order, v2 shape (spec 4.10; retired)',
    description: 'Retired at 2026-10-09T00:00:00Z: authenticated calls now get 410 `WATERMARK_V2_API_SUNSET`. Use `POST /api/v3/orders/wtr-extract`.',
    deprecated: true,
  })
  @ApiBody({ type: CreateV2ExtractOrderDto, examples: { one: { value: { idempotencyKey: '0f5d7c3a-8a43-4d0e-a7f5-3b0e1c7d9a21', file: { fileName: 'leaked.jpg' }, includeOriginal: true } } } })
  @ApiData('V2ExtractOrderCreated', { description: 'the order (before the retirement)' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_API_SUNSET)
  createV2Extract(@Caller() caller: CallerContext, @Body() request: CreateV2ExtractOrderDto): Promise<DataEnvelope<V2ExtractOrderCreatedView>> {
    const command: CreateV2ExtractOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersV2CreateExtract, command));
  }
}

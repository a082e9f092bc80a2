import {
  CallerContext,
  CreateEmbedOrderCommand,
  CreateEmbedOrderDto,
  CreateV2EmbedOrderCommand,
  CreateV2EmbedOrderDto,
  ErrorCode,
  Rpcs,
  V2EmbedOrderCreatedView,
  WatermarkOrderView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../auth/caller';
import { ApiData, ApiErrors } from '../../http/api-responses.decorator';
import { data, DataEnvelope } from '../../http/data-envelope';
import { DeprecatedRoute } from '../../v2/deprecated-route.guard';

const EMBED_EXAMPLE = {
  idempotencyKey: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11',
  files: [
    { fileName: 'photo.jpg', watermarks: [{ text: 'alice' }, { text: 'bob' }] },
    { fileName: 'contract.pdf', originalFileUrl: 'https://example.com/contract.pdf', watermarks: [{ text: 'alice' }] },
  ],
};

/**
 * Watermark embed orders (spec 4.1, and the retired v2 endpoint of spec 4.9): thin HTTP layer over the orders
 * service (the rules are there, in the type's folder). Each route keeps the tag of its API version.
 */
@Controller('api')
export class WatermarkEmbedController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('v3/orders/wtr-embed')
  @HttpCode(200)
  @ApiTags('orders (v3)')
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

  @Post('v2/orders/wtr-embed')
  @HttpCode(200)
  @ApiTags('orders (v2, deprecated)')
  @DeprecatedRoute({ sunset: true, successor: '/api/v3/orders/wtr-embed' })
  @ApiOperation({
    operationId: 'createV2EmbedOrder',
    summary: 'Create a watermark embed order, v2 shape (spec 4.9; retired)',
    description: 'Retired at 2026-10-09T00:00:00Z: authenticated calls now get 410 `WATERMARK_V2_API_SUNSET` with a `Link` header to the v3 endpoint. Use `POST /api/v3/orders/wtr-embed`.',
    deprecated: true,
  })
  @ApiBody({ type: CreateV2EmbedOrderDto, examples: { one: { value: { idempotencyKey: '6c1f9c1e-1b9a-4f43-9a4c-0f0b2f3c2d11', files: [{ fileName: 'photo.jpg', watermarks: [{ text: 'alice' }] }] } } } })
  @ApiData('V2EmbedOrderCreated', { description: 'the order (before the retirement)' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_API_SUNSET)
  createV2Embed(@Caller() caller: CallerContext, @Body() request: CreateV2EmbedOrderDto): Promise<DataEnvelope<V2EmbedOrderCreatedView>> {
    const command: CreateV2EmbedOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersV2CreateEmbed, command));
  }
}

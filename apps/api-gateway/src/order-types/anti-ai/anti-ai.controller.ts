import {
  AntiAiOrderCreatedView,
  AntiAiWithUrlsCreatedView,
  CallerContext,
  CreateAntiAiOrderCommand,
  CreateAntiAiOrderDto,
  CreateAntiAiWithUrlsCommand,
  CreateAntiAiWithUrlsDto,
  ErrorCode,
  Rpcs,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../auth/caller';
import { ApiData, ApiErrors } from '../../http/api-responses.decorator';
import { data, DataEnvelope } from '../../http/data-envelope';
import { DeprecatedRoute } from '../../v2/deprecated-route.guard';

/** Anti-AI orders (spec 4.14, docs/anti-ai.md): thin HTTP layer over the orders service (the rules are there, in the type's folder). */
@ApiTags('orders (v2, deprecated)')
@Controller('api/v2/orders')
export class AntiAiController {
  constructor(private readonly rpc: RpcClient) {}

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
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT, ErrorCode.PAYLOAD_TOO_LARGE)
  createAntiAi(@Caller() caller: CallerContext, @Body() request: CreateAntiAiOrderDto): Promise<DataEnvelope<AntiAiOrderCreatedView>> {
    const command: CreateAntiAiOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateAntiAi, command));
  }

  @Post('anti-ai/with-urls')
  @HttpCode(200)
  @DeprecatedRoute({ sunset: false, successor: '/api/v2/orders/anti-ai' })
  @ApiOperation({
    operationId: 'createAntiAiOrderWithUrls',
    summary: 'Create an anti-AI order from image URLs (spec 4.14; deprecated)',
    description: 'Deprecated: use `POST /api/v2/orders/anti-ai` with `originalFileUrl`. Processing starts at once (`inProgress`); no upload URLs.',
    deprecated: true,
  })
  @ApiBody({ type: CreateAntiAiWithUrlsDto, examples: { one: { value: { idempotencyKey: '9d2c7a31-0e44-4b8e-8f2d-5a1c6b3e7f90', files: [{ fileName: 'photo.jpg', imageUrl: 'https://images.example.com/photo.jpg' }], options: { strength: 'high' } } } } })
  @ApiData('AntiAiWithUrlsCreated', { description: 'the order, already in progress' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT, ErrorCode.PAYLOAD_TOO_LARGE)
  createAntiAiWithUrls(@Caller() caller: CallerContext, @Body() request: CreateAntiAiWithUrlsDto): Promise<DataEnvelope<AntiAiWithUrlsCreatedView>> {
    const command: CreateAntiAiWithUrlsCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersCreateAntiAiWithUrls, command));
  }
}

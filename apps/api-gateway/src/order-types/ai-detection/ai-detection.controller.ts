import {
  AiDetectionConfirmView,
  AiDetectionOrderCreatedView,
  CallerContext,
  ConfirmAiDetectionOrderCommand,
  ConfirmAiDetectionOrderDto,
  CreateAiDetectionOrderCommand,
  CreateAiDetectionOrderDto,
  ErrorCode,
  ORDER_ID_PATTERN,
  Rpcs,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../auth/caller';
import { ApiData, ApiErrors } from '../../http/api-responses.decorator';
import { data, DataEnvelope } from '../../http/data-envelope';
import { pathId } from '../../http/path-id';

/** AI detection orders (spec 4.15, docs/ai-detection.md): thin HTTP layer over the orders service (the rules are there, in the type's folder). */
@ApiTags('orders (v2, deprecated)')
@Controller('api/v2/orders')
export class AiDetectionController {
  constructor(private readonly rpc: RpcClient) {}

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
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.USAGE_LIMIT_EXCEEDED, ErrorCode.WATERMARK_V2_CONFLICT, ErrorCode.PAYLOAD_TOO_LARGE)
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
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.ORDER_EXPIRED, ErrorCode.WATERMARK_V2_CONFLICT, ErrorCode.PAYLOAD_TOO_LARGE)
  confirmAiDetection(@Caller() caller: CallerContext, @Body() request: ConfirmAiDetectionOrderDto): Promise<DataEnvelope<AiDetectionConfirmView>> {
    // The body's id is checked like a path id: of the spec's pattern but beyond a 64-bit integer, it names no order (404), never a 500.
    pathId(request.orderId, ORDER_ID_PATTERN, ErrorCode.RESOURCE_NOT_FOUND);
    const command: ConfirmAiDetectionOrderCommand = { caller, request };
    return data(this.rpc.request(Rpcs.ordersConfirmAiDetection, command));
  }
}

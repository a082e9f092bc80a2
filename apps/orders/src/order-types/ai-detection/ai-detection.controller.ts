import { AiDetectionConfirmView, AiDetectionOrderCreatedView, ConfirmAiDetectionOrderCommand, CreateAiDetectionOrderCommand, Rpcs } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConfirmAiDetectionOrderUseCase } from './confirm-ai-detection-order.use-case';
import { CreateAiDetectionOrderUseCase } from './create-ai-detection-order.use-case';

/** Creation and confirmation of AI detection orders. */
@RpcHandlers()
@Controller()
export class AiDetectionController {
  constructor(
    private readonly create: CreateAiDetectionOrderUseCase,
    private readonly confirmOrder: ConfirmAiDetectionOrderUseCase,
  ) {}

  @MessagePattern(Rpcs.ordersCreateAiDetection.pattern)
  createOrder(@Payload() command: CreateAiDetectionOrderCommand): Promise<AiDetectionOrderCreatedView> {
    return this.create.execute(command);
  }

  @MessagePattern(Rpcs.ordersConfirmAiDetection.pattern)
  confirm(@Payload() command: ConfirmAiDetectionOrderCommand): Promise<AiDetectionConfirmView> {
    return this.confirmOrder.execute(command);
  }
}

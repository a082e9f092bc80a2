import { AntiAiOrderCreatedView, AntiAiWithUrlsCreatedView, CreateAntiAiOrderCommand, CreateAntiAiWithUrlsCommand, Rpcs } from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateAntiAiOrderUseCase } from './create-anti-ai-order.use-case';
import { CreateAntiAiWithUrlsOrderUseCase } from './create-anti-ai-with-urls-order.use-case';

/** Creation endpoints of anti-AI orders (the standard one and the deprecated with-urls). */
@RpcHandlers()
@Controller()
export class AntiAiController {
  constructor(
    private readonly create: CreateAntiAiOrderUseCase,
    private readonly createWithUrls: CreateAntiAiWithUrlsOrderUseCase,
  ) {}

  @MessagePattern(Rpcs.ordersCreateAntiAi.pattern)
  createOrder(@Payload() command: CreateAntiAiOrderCommand): Promise<AntiAiOrderCreatedView> {
    return this.create.execute(command);
  }

  @MessagePattern(Rpcs.ordersCreateAntiAiWithUrls.pattern)
  createOrderWithUrls(@Payload() command: CreateAntiAiWithUrlsCommand): Promise<AntiAiWithUrlsCreatedView> {
    return this.createWithUrls.execute(command);
  }
}

import { AntiAiOrderCreatedView, AntiAiWithUrlsCreatedView, CreateAntiAiOrderCommand, CreateAntiAiWithUrlsCommand, Rpcs } from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
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

  @RpcHandler(Rpcs.ordersCreateAntiAi)
  createOrder(command: CreateAntiAiOrderCommand): Promise<AntiAiOrderCreatedView> {
    return this.create.execute(command);
  }

  @RpcHandler(Rpcs.ordersCreateAntiAiWithUrls)
  createOrderWithUrls(command: CreateAntiAiWithUrlsCommand): Promise<AntiAiWithUrlsCreatedView> {
    return this.createWithUrls.execute(command);
  }
}

import { OrderTypeFolder } from '../order-type-definition';
import { AntiAiController } from './anti-ai.controller';
import { AntiAiOrderType } from './anti-ai.order-type';
import { CreateAntiAiOrderUseCase } from './create-anti-ai-order.use-case';
import { CreateAntiAiWithUrlsOrderUseCase } from './create-anti-ai-with-urls-order.use-case';

/** Anti-AI orders: the standard endpoint and the deprecated with-urls (spec 4.14). */
export const antiAiFolder: OrderTypeFolder = {
  definition: AntiAiOrderType,
  providers: [CreateAntiAiOrderUseCase, CreateAntiAiWithUrlsOrderUseCase],
  controllers: [AntiAiController],
};

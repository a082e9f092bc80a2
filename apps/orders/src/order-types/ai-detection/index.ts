import { OrderTypeFolder } from '../order-type-definition';
import { AiDetectionController } from './ai-detection.controller';
import { AiDetectionOrderType } from './ai-detection.order-type';
import { ConfirmAiDetectionOrderUseCase } from './confirm-ai-detection-order.use-case';
import { CreateAiDetectionOrderUseCase } from './create-ai-detection-order.use-case';

/** AI detection orders: creation, then the confirm call of spec 4.15 starts the analysis. */
export const aiDetectionFolder: OrderTypeFolder = {
  definition: AiDetectionOrderType,
  providers: [CreateAiDetectionOrderUseCase, ConfirmAiDetectionOrderUseCase],
  controllers: [AiDetectionController],
};

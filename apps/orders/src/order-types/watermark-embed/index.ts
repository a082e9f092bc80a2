import { OrderTypeFolder } from '../order-type-definition';
import { CreateEmbedOrderUseCase } from './create-embed-order.use-case';
import { CreateV2EmbedOrderUseCase } from './create-v2-embed-order.use-case';
import { WatermarkEmbedController } from './watermark-embed.controller';
import { WatermarkEmbedOrderType } from './watermark-embed.order-type';

/** Watermark embed orders: spec 4.1 (v3) and 4.9 (v2). */
export const watermarkEmbedFolder: OrderTypeFolder = {
  definition: WatermarkEmbedOrderType,
  providers: [CreateEmbedOrderUseCase, CreateV2EmbedOrderUseCase],
  controllers: [WatermarkEmbedController],
};

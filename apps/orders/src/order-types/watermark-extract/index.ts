import { OrderTypeFolder } from '../order-type-definition';
import { CreateExtractOrderUseCase } from './create-extract-order.use-case';
import { CreateV2ExtractOrderUseCase } from './create-v2-extract-order.use-case';
import { WatermarkExtractController } from './watermark-extract.controller';
import { WatermarkExtractOrderType } from './watermark-extract.order-type';

/** Watermark extract orders: spec 4.2 (v3) and 4.10 (v2). */
export const watermarkExtractFolder: OrderTypeFolder = {
  definition: WatermarkExtractOrderType,
  providers: [CreateExtractOrderUseCase, CreateV2ExtractOrderUseCase],
  controllers: [WatermarkExtractController],
};

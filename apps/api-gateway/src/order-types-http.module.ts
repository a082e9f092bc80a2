import { Module } from '@nestjs/common';
import { AiDetectionController } from './order-types/ai-detection/ai-detection.controller';
import { AntiAiController } from './order-types/anti-ai/anti-ai.controller';
import { WatermarkEmbedController } from './order-types/watermark-embed/watermark-embed.controller';
import { WatermarkExtractController } from './order-types/watermark-extract/watermark-extract.controller';

/** The creation routes of each order type, one folder each under `order-types/` (the v2 ones marked `@DeprecatedRoute`). */
@Module({
  controllers: [WatermarkEmbedController, WatermarkExtractController, AntiAiController, AiDetectionController],
})
export class OrderTypesHttpModule {}

import { Module } from '@nestjs/common';
import { AiDetectionController } from './order-types/ai-detection/ai-detection.controller';
import { AntiAiController } from './order-types/anti-ai/anti-ai.controller';
import { WatermarkEmbedController } from './order-types/watermark-embed/watermark-embed.controller';
import { WatermarkExtractController } from './order-types/watermark-extract/watermark-extract.controller';
import { V2DeprecatedInterceptor, V2SunsetInterceptor } from './v2/v2-deprecation.interceptor';

/** The creation routes of each order type, one folder each under `order-types/` (the v2 ones keep their deprecation headers). */
@Module({
  controllers: [WatermarkEmbedController, WatermarkExtractController, AntiAiController, AiDetectionController],
  providers: [V2SunsetInterceptor, V2DeprecatedInterceptor],
})
export class OrderTypesHttpModule {}

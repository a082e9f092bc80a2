import { AiDetector, DetectionResult } from '@cp/ai-detection';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AI_DETECTOR_CONFIG, AiDetectorConfig } from '../ai-detector.config';

/** The detector of the library, created once per process (it keeps an ExifTool process and the ONNX session). */
@Injectable()
export class AiDetectorProvider implements OnModuleInit, OnModuleDestroy {
  private detector: AiDetector | null = null;

  constructor(@Inject(AI_DETECTOR_CONFIG) private readonly config: AiDetectorConfig) {}

  async onModuleInit(): Promise<void> {
    this.detector = await AiDetector.create({
      maxPixels: this.config.detection.maxPixels,
      classifier: this.config.detection.classifier,
      c2pa: this.config.detection.c2pa,
      c2paTrust: this.config.detection.c2paTrust,
    });
  }

  detect(bytes: Buffer): Promise<DetectionResult> {
    if (!this.detector) throw new Error('detector not initialised');
    return this.detector.detect(bytes);
  }

  async onModuleDestroy(): Promise<void> {
    await this.detector?.close();
  }
}

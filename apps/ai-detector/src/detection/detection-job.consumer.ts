import { Jobs } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { workerJobConsumer } from '@cp/runtime';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AI_DETECTOR_CONFIG, AiDetectorConfig } from '../ai-detector.config';
import { DetectImageUseCase } from './detect-image.use-case';
import { DetectionExhaustedUseCase } from './detection-exhausted.use-case';

/** The detection work queue, shared by every ai-detector replica (one durable pull consumer). */
@Injectable()
export class DetectionJobConsumer implements OnModuleInit {
  constructor(
    @Inject(AI_DETECTOR_CONFIG) private readonly config: AiDetectorConfig,
    private readonly messaging: MessagingRuntime,
    private readonly detectImage: DetectImageUseCase,
    private readonly exhausted: DetectionExhaustedUseCase,
  ) {}

  onModuleInit(): void {
    // Heartbeats keep a live detection's job; a crashed replica's job comes back within the short ack wait.
    this.messaging.register(
      workerJobConsumer({
        durable: 'aidetect-detect',
        message: Jobs.aiDetect,
        settings: this.config.detection,
        handle: (job, context) => this.detectImage.execute(job, context),
        onExhausted: (job) => this.exhausted.execute(job),
      }),
    );
  }
}

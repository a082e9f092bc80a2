import { Jobs, Streams } from '@cp/contracts';
import { HEARTBEAT_JOB_ACK_WAIT_MS, MessagingRuntime } from '@cp/messaging';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AI_DETECTOR_CONFIG, AiDetectorConfig } from '../ai-detector.config';
import { DetectImageUseCase } from './detect-image.use-case';

/** The detection work queue, shared by every ai-detector replica (one durable pull consumer). */
@Injectable()
export class DetectionJobConsumer implements OnModuleInit {
  constructor(
    @Inject(AI_DETECTOR_CONFIG) private readonly config: AiDetectorConfig,
    private readonly messaging: MessagingRuntime,
    private readonly detectImage: DetectImageUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'aidetect-detect',
      stream: Streams.jobs.name,
      message: Jobs.aiDetect,
      concurrency: this.config.detection.concurrency,
      maxAttempts: this.config.detection.maxAttempts,
      backoffMs: [2000, 10_000, 60_000],
      // Heartbeats keep a live detection's job; a crashed replica's job comes back within the short ack wait.
      ackWaitMs: HEARTBEAT_JOB_ACK_WAIT_MS,
      handle: (job, context) => this.detectImage.execute(job, context),
      onExhausted: (job) => this.detectImage.exhausted(job),
    });
  }
}

import { DetectionInputRejected, DetectionResult } from '@cp/ai-detection';
import { AiDetectionCompletedEvent, AiDetectionFailedEvent, AiDetectionImages, AiDetectionJob, Events, OrderFailureCode, StoredObjectRef } from '@cp/contracts';
import { HandlerContext, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AI_DETECTOR_CONFIG, AiDetectorConfig } from '../ai-detector.config';
import { AiDetectorProvider } from './ai-detector.provider';
import { RenderedImage, renderDetectionImages } from './detection-images';
import { DetectionRunRepository } from './detection-run.repository';

/**
 * One image of an aiDetection order: run every signal, store the images, record the run and its evidence, and
 * report through the outbox. An image that can never be analysed fails with a public code; anything else retries.
 */
@Injectable()
export class DetectImageUseCase {
  private readonly logger = new Logger(DetectImageUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(AI_DETECTOR_CONFIG) private readonly config: AiDetectorConfig,
    private readonly runs: DetectionRunRepository,
    private readonly detector: AiDetectorProvider,
    private readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(job: AiDetectionJob, context: HandlerContext): Promise<void> {
    const started = Date.now();
    const run = await this.transactions.run((manager) =>
      this.runs.start(manager, { accountId: job.accountId, orderId: job.orderId, fileId: job.fileId }));

    let input: Buffer;
    let result: DetectionResult;
    try {
      const info = await this.storage.stat(job.input.bucket, job.input.key);
      if (!info) throw new Error(`input ${job.input.key} is not in storage`);
      if (info.size > this.config.detection.maxInputBytes) {
        await this.fail(job, run.id, OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE, context, `input has ${info.size} bytes`);
        return;
      }
      input = await this.storage.getBuffer(job.input.bucket, job.input.key, this.config.detection.maxInputBytes);
      result = await this.detector.detect(input);
    } catch (error) {
      if (error instanceof DetectionInputRejected) {
        const code = error.reason === 'tooLarge' ? OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE : OrderFailureCode.AI_DETECTION_FILE_INVALID;
        await this.fail(job, run.id, code, context, error.message);
        return;
      }
      throw error;
    }

    const rendered = await renderDetectionImages(input, result, job);
    const store = async (image: RenderedImage | null): Promise<StoredObjectRef | null> => {
      if (!image) return null;
      const key = `${job.outputPrefix}${job.fileId}/${image.name}`;
      await this.storage.put(job.outputBucket, key, image.data, image.contentType);
      return { bucket: job.outputBucket, key, fileName: image.name };
    };
    const images: AiDetectionImages = {
      preview: await store(rendered.preview),
      thumbnail: (await store(rendered.thumbnail))!,
      heatmap: await store(rendered.heatmap),
      overlay: await store(rendered.overlay),
    };
    const evidence = result.evidence.map(({ signal, finding, description, direction, weight, details, provenance }) => ({
      signal, finding, description, direction, weight, details, ...(provenance ? { provenance } : {}),
    }));
    const completed: AiDetectionCompletedEvent = {
      orderId: job.orderId,
      fileId: job.fileId,
      probability: result.probability,
      category: result.category,
      verdict: result.verdict,
      noEvidence: result.noEvidence,
      statement: result.statement,
      evidence,
      heatmapNote: result.heatmapNote,
      images,
    };
    await context.transaction(async (manager) => {
      await this.runs.complete(manager, run.id, {
        probability: result.probability,
        category: result.category,
        noEvidence: result.noEvidence,
        images: { ...images },
        durationMs: Date.now() - started,
      }, evidence);
      await this.outbox.add(manager, Events.aiDetectionCompleted, completed);
    });
  }

  private async fail(job: AiDetectionJob, runId: string, code: OrderFailureCode, context: HandlerContext, reason: string): Promise<void> {
    this.logger.warn({ orderId: job.orderId, fileId: job.fileId, code, reason }, 'input rejected');
    const failed: AiDetectionFailedEvent = { orderId: job.orderId, fileId: job.fileId, code };
    await context.transaction(async (manager) => {
      await this.runs.fail(manager, runId, code);
      await this.outbox.add(manager, Events.aiDetectionFailed, failed);
    });
  }

  /** Automatic attempts exhausted (storage or a crash kept failing): the file fails with PROCESSING_ERROR. */
  async exhausted(job: AiDetectionJob): Promise<void> {
    const failed: AiDetectionFailedEvent = { orderId: job.orderId, fileId: job.fileId, code: OrderFailureCode.PROCESSING_ERROR };
    await this.transactions.run(async (manager) => {
      const run = await this.runs.start(manager, { accountId: job.accountId, orderId: job.orderId, fileId: job.fileId });
      await this.runs.fail(manager, run.id, OrderFailureCode.PROCESSING_ERROR);
      await this.outbox.add(manager, Events.aiDetectionFailed, failed);
    });
  }
}

import { DetectionInputRejected, DetectionResult } from '@cp/ai-detection';
import { AiDetectionCompletedEvent, AiDetectionFailedEvent, AiDetectionImages, AiDetectionJob, Events, OrderFailureCode, StoredObjectRef } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { examinedBytesOf, FileJob, FileRejection, OversizeOutcome, StoredInput } from '@cp/runtime';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { AI_DETECTOR_CONFIG, AiDetectorConfig } from '../ai-detector.config';
import { AiDetectorProvider } from './ai-detector.provider';
import { RenderedImage, renderDetectionImages } from './detection-images';
import { DetectionRunRepository } from './detection-run.repository';

interface DetectionTypes {
  job: AiDetectionJob;
  /** The run record of the file and when this attempt started (its duration is recorded). */
  state: { runId: string; started: number };
  result: DetectionResult;
  outcome: AiDetectionCompletedEvent;
  code: OrderFailureCode;
}

/**
 * One image of an aiDetection order: run every signal, store the images, record the run and its evidence, and
 * report through the outbox. An image that can never be analysed fails with a public code; anything else retries.
 */
@Injectable()
export class DetectImageUseCase extends FileJob<DetectionTypes> {
  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(AI_DETECTOR_CONFIG) private readonly config: AiDetectorConfig,
    private readonly runs: DetectionRunRepository,
    private readonly detector: AiDetectorProvider,
    protected readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {
    super();
  }

  protected maxInputBytes(): number {
    return this.config.detection.maxInputBytes;
  }

  protected inputsOf(job: AiDetectionJob): StoredInput[] {
    return [job.input];
  }

  protected async begin(job: AiDetectionJob): Promise<DetectionTypes['state']> {
    const started = Date.now();
    const run = await this.transactions.run((tx) => this.runs.start(tx, { accountId: job.accountId, orderId: job.orderId, fileId: job.fileId }));
    return { runId: run.id, started };
  }

  protected oversize(_job: AiDetectionJob, size: number): OversizeOutcome<DetectionTypes> {
    return { reject: { code: OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE, reason: `input has ${size} bytes` } };
  }

  protected run([input]: Buffer[]): Promise<DetectionResult> {
    return this.detector.detect(input);
  }

  /** The preview, thumbnail, heatmap and overlay images, stored beside the order's outputs. */
  protected async writeOutput(job: AiDetectionJob, result: DetectionResult, _state: DetectionTypes['state'], [input]: Buffer[]): Promise<AiDetectionCompletedEvent> {
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
    return {
      orderId: job.orderId,
      fileId: job.fileId,
      probability: result.probability,
      category: result.category,
      verdict: result.verdict,
      noEvidence: result.noEvidence,
      statement: result.statement,
      evidence: result.evidence.map(({ signal, finding, description, direction, weight, details, provenance }) => ({
        signal, finding, description, direction, weight, details, ...(provenance ? { provenance } : {}),
      })),
      heatmapNote: result.heatmapNote,
      images,
      examined: examinedBytesOf(input),
    };
  }

  protected rejectionOf(error: unknown): FileRejection<OrderFailureCode> | null {
    if (!(error instanceof DetectionInputRejected)) return null;
    return { code: error.reason === 'tooLarge' ? OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE : OrderFailureCode.AI_DETECTION_FILE_INVALID, reason: error.message };
  }

  protected async recordCompleted(tx: Transaction, _job: AiDetectionJob, completed: AiDetectionCompletedEvent, state: DetectionTypes['state']): Promise<void> {
    const { probability, category, noEvidence, images, evidence } = completed;
    await this.runs.complete(tx, state.runId, { probability, category, noEvidence, images: { ...images }, durationMs: Date.now() - state.started }, evidence);
    await this.outbox.add(tx, Events.aiDetectionCompleted, completed);
  }

  protected async recordFailed(tx: Transaction, job: AiDetectionJob, code: OrderFailureCode, state: DetectionTypes['state']): Promise<void> {
    const failed: AiDetectionFailedEvent = { orderId: job.orderId, fileId: job.fileId, code };
    await this.runs.fail(tx, state.runId, code);
    await this.outbox.add(tx, Events.aiDetectionFailed, failed);
  }
}

import { ColluderTraceView, Events, ExaminedExtractFiles, ExtractCompletedEvent, ExtractJob, mediaKindOf } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { examinedBytesOf, FileJob, FileRejection, OversizeOutcome, StoredInput } from '@cp/runtime';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { ColluderTrace } from '@cp/watermark';
import { Detection, WatermarkEngine } from '../engine/watermark-engine';
import { IssuanceEntity } from '../issuance/issuance.entity';
import { IssuanceRepository, payloadOf } from '../issuance/issuance.repository';
import { PROCESSOR_CONFIG, WatermarkProcessorConfig } from '../watermark-processor.config';

/** A detection with the accused recipients mapped to their issuances (issue 36), and the bytes it was made on. */
interface TracedDetection extends Detection {
  colluders?: ColluderTraceView;
  examined?: ExaminedExtractFiles;
}

/** The report's view of candidate tracing: each accused payload as the issuance it was issued in (same account). */
function colludersView(trace: ColluderTrace | undefined, byPayload: ReadonlyMap<bigint, IssuanceEntity>): ColluderTraceView | undefined {
  if (!trace || trace.accused.length === 0) return undefined;
  const accused = trace.accused.flatMap((a) => {
    const issuance = byPayload.get(a.payload);
    return issuance ? [{ orderId: issuance.orderId, watermarkText: issuance.watermarkText, z: a.z, bound: a.bound, correlation: a.correlation, regionShare: a.regionShare }] : [];
  });
  return { candidatesTested: trace.candidatesTested, level: trace.level, threshold: trace.threshold, mixing: trace.mixing, accused };
}

interface ExtractTypes {
  job: ExtractJob;
  state: void;
  result: TracedDetection;
  outcome: ExtractCompletedEvent;
  // An extract order has a result for every file it can read, `unsupported` included: it never fails a file.
  code: never;
}

/**
 * Who leaked this file: detect the mark, look its payload up in the issuance registry of the whole
 * service, and show the text only to the account that issued it (spec 2.4).
 */
@Injectable()
export class ExtractWatermarkUseCase extends FileJob<ExtractTypes> {
  constructor(
    private readonly issuances: IssuanceRepository,
    @Inject(PROCESSOR_CONFIG) private readonly config: WatermarkProcessorConfig,
    private readonly engine: WatermarkEngine,
    protected readonly storage: ObjectStorage,
    private readonly outbox: OutboxWriter,
  ) {
    super();
  }

  protected maxInputBytes(): number {
    return this.config.watermark.maxInputBytes;
  }

  /** The inspected copy, then the original it is compared with. */
  protected inputsOf(job: ExtractJob): StoredInput[] {
    return [job.inspected, job.original];
  }

  protected begin(): Promise<void> {
    return Promise.resolve();
  }

  protected oversize(): OversizeOutcome<ExtractTypes> {
    return { result: { status: 'unsupported', confidence: 0, method: 'none', capturedFromPdf: false } };
  }

  /**
   * Issue 36: images are also traced against every recipient the account issued the same original to (same input
   * object, or the same bytes in any order), so a copy several recipients combined names each of them.
   */
  protected async run([inspected, original]: Buffer[], job: ExtractJob, _state: void, signal: AbortSignal): Promise<TracedDetection> {
    const kind = mediaKindOf(job.original.fileName);
    const algorithm = job.algorithm ?? 'v3';
    // hashed as read: the upload URLs stay valid after the upload, so the stored objects may later hold other bytes
    const examined = { original: examinedBytesOf(original), inspected: examinedBytesOf(inspected) };
    const candidates =
      kind === 'image'
        ? await this.issuances.findCandidates({ accountId: job.accountId, algorithm, inputKey: job.original.key, inputSha256: examined.original.sha256 })
        : [];
    const byPayload = new Map(candidates.map((issuance) => [payloadOf(issuance), issuance]));
    const detection = await this.engine.extract(inspected, original, kind, algorithm, signal, [...byPayload.keys()]);
    return { ...detection, colluders: colludersView(detection.trace, byPayload), examined };
  }

  /** Nothing is stored: the outcome is the detection, with the watermark text when this account issued the mark. */
  protected async writeOutput(job: ExtractJob, detection: TracedDetection): Promise<ExtractCompletedEvent> {
    let watermarkText: string | null = null;
    // several colluders: detected, and no single text (more than one issuance matches, spec 2.4)
    const several = (detection.colluders?.accused.length ?? 0) >= 2;
    if (detection.status === 'detected' && detection.payload !== undefined && !several) {
      const matches = await this.issuances.findByPayload(detection.payload, job.algorithm ?? 'v3');
      if (matches.length === 1 && matches[0].accountId === job.accountId) {
        watermarkText = matches[0].watermarkText;
      }
    }
    const status = detection.status;
    const evidence = detection.evidence && detection.colluders ? { ...detection.evidence, colluders: detection.colluders } : detection.evidence;
    return {
      orderId: job.orderId,
      detectionStatus: status,
      reportSupported: !detection.capturedFromPdf && (status === 'detected' || status === 'not_detected' || status === 'inconclusive'),
      watermarkText,
      confidence: Math.min(1, Math.max(0, detection.confidence)),
      method: detection.method,
      ...(evidence ? { evidence } : {}),
      ...(detection.examined ? { examined: detection.examined } : {}),
    };
  }

  protected rejectionOf(): FileRejection<never> | null {
    return null;
  }

  protected async recordCompleted(tx: Transaction, _job: ExtractJob, completed: ExtractCompletedEvent): Promise<void> {
    await this.outbox.add(tx, Events.extractCompleted, completed);
  }

  protected recordFailed(): Promise<void> {
    return Promise.reject(new Error('an extract order never fails a file'));
  }
}

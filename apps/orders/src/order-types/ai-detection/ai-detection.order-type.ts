import {
  AiDetectionAnalysis,
  AiDetectionCompletedEvent,
  aiDetectionCategoryOf,
  aiDetectionVerdictOf,
  AiDetectionVerdict,
  AiDetectionResultView,
  Events,
  Jobs,
  message,
  ObjectKeys,
  OutboxMessage,
  ReportContextFile,
  ReportContextView,
  StoredObjectRef,
  V2OrderDetailView,
  WatermarkOrderView,
  WebhookLink,
} from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order, OrderOptions } from '../../domain/order';
import { ObjectUrls, onResult, OrderTypeDefinition, ProcessingContext } from '../order-type-definition';
import { inputRef } from '../order-outputs';
import { toOrderView } from '../order-view.mapper';
import { aiDetectionOptionsOf, isConfirmed } from './ai-detection-order.rules';

/**
 * One image's analysis as the order keeps it (`typeResult.files[fileId]`); `original` is what the reads show
 * as the input image: the detector's WebP copy, or the input itself when it is small enough.
 */
export type StoredDetection = Omit<AiDetectionCompletedEvent, 'orderId'> & { original?: StoredObjectRef | null };

interface DetectionResults extends OrderOptions {
  files: Record<string, StoredDetection>;
}

function detectionsOf(order: Order): StoredDetection[] {
  const files = (order.state.typeResult as DetectionResults | null)?.files ?? {};
  return order.files.flatMap((file) => files[file.id] ?? []);
}

/** The order's headline: its most AI-looking image (an order is as suspicious as its worst image). */
function headlineDetection(order: Order): StoredDetection | null {
  return detectionsOf(order).reduce<StoredDetection | null>((top, detection) => (!top || detection.probability > top.probability ? detection : top), null);
}

/**
 * An order that ended without completing (failed, or expired before it completed) shows no verdict, whatever its
 * other images gave: the order as a whole failed (its credits came back), and a probability is only shown when what
 * was measured backs it as the order's result. Outside review: an order of three images failed by one invalid image
 * still read `uncertain_ai`, 0.5 from the others, while an order failed on its only image showed none. The analyses
 * stay stored (their objects are linked, so retention deletes them); the reads leave them out.
 */
function endedWithoutResult(order: Order): boolean {
  return order.state.completedAt === null && (order.state.status === 'failed' || order.state.status === 'expired');
}

interface Headline {
  probability: number;
  category: AiDetectionResultView['category'];
  verdict: AiDetectionVerdict;
  noEvidence: boolean;
}

/** The headline image's probability and spec category, with its verdict: what every surface leads with. */
function headline(order: Order): Headline | null {
  const top = headlineDetection(order);
  return top
    ? { probability: top.probability, category: aiDetectionCategoryOf(top.probability), verdict: aiDetectionVerdictOf(top), noEvidence: top.noEvidence }
    : null;
}

/** The analysis itself, as the v3 view and the report show it. */
function analysisOf(detection: StoredDetection): AiDetectionAnalysis {
  const { probability, category, noEvidence, statement, evidence, heatmapNote } = detection;
  return { probability, category, verdict: aiDetectionVerdictOf(detection), noEvidence, statement, evidence, heatmapNote };
}

/** A simulated result's images are empty references: nothing to link to. */
function stored(ref: StoredObjectRef | null | undefined): StoredObjectRef | null {
  return ref && ref.key !== '' ? ref : null;
}

/** What a test key gets: a result that says it is simulated, in the uncertain band, with no evidence. */
function simulated(fileId: string): StoredDetection {
  return {
    fileId,
    probability: 0.5,
    category: aiDetectionCategoryOf(0.5),
    verdict: 'cannot_be_determined',
    noEvidence: true,
    statement: 'Simulated result for a test key: no analysis was made.',
    evidence: [],
    heatmapNote: 'Simulated result: no heatmap.',
    images: { preview: null, thumbnail: { bucket: '', key: '', fileName: '' }, heatmap: null, overlay: null },
  };
}

/**
 * AI detection orders (spec 1, 2.7, 4.15; docs/ai-detection.md): processing starts when the client confirms;
 * the ai-detector analyses each image and the order keeps each analysis. There is no result file.
 */
@Injectable()
export class AiDetectionOrderType implements OrderTypeDefinition {
  readonly type = 'aiDetection' as const;
  readonly reportType = 'aiDetection' as const;

  readonly results = [
    onResult('orders-ai-detection-completed', Events.aiDetectionCompleted, (order, event, context) => {
      const file = order.files.find((candidate) => candidate.id === event.fileId);
      const input = file ? inputRef(order, file, context.buckets.inputs) : null;
      const detection: StoredDetection = {
        fileId: event.fileId,
        original: event.images.preview ?? input,
        probability: event.probability,
        category: event.category,
        verdict: aiDetectionVerdictOf(event),
        noEvidence: event.noEvidence,
        statement: event.statement,
        evidence: event.evidence,
        heatmapNote: event.heatmapNote,
        images: event.images,
        ...(event.examined ? { examined: event.examined } : {}),
      };
      order.recordTypeResult((current) => {
        const files = { ...((current as DetectionResults | null)?.files ?? {}), [event.fileId]: detection };
        return { files } satisfies DetectionResults;
      }, context.now);
      if (!order.outputCompleted(`${event.fileId}-1`, '', context.now) || !order.allOutputsCompleted()) {
        return [];
      }
      return order.complete(context.now, { download: null, webhookData: this.webhookData(order), links: this.webhookLinks(order) }, null);
    }, (event) => event.fileId),
    // An image that can never be analysed fails the order with its public code; the credits come back.
    onResult(
      'orders-ai-detection-failed',
      Events.aiDetectionFailed,
      (order, event, context) => order.outputFailed(`${event.fileId}-1`, event.code, context.now),
      (event) => event.fileId,
    ),
  ];

  /** Spec 4.15: the analysis starts on the client's confirmation; one given before the last image starts it then. */
  startsOnLastFile(order: Order): boolean {
    return isConfirmed(order);
  }

  startLive(order: Order, { buckets }: ProcessingContext): OutboxMessage[] {
    const { state } = order;
    const options = aiDetectionOptionsOf(state.options);
    return order.files.map((file) =>
      message(Jobs.aiDetect, {
        orderId: state.id,
        accountId: state.accountId,
        fileId: file.id,
        input: inputRef(order, file, buckets.inputs),
        outputBucket: buckets.outputs,
        outputPrefix: `${ObjectKeys.orderPrefix(state.accountId, state.id)}ai-detection/${file.id}/`,
        generateHeatmap: options.generateHeatmap,
        generateOverlay: options.generateOverlay,
      }),
    );
  }

  startSandbox(order: Order, { now }: ProcessingContext): OutboxMessage[] {
    order.recordTypeResult(() => ({ files: Object.fromEntries(order.files.map((file) => [file.id, simulated(file.id)])) }) satisfies DetectionResults, now);
    order.outputsSimulated();
    return order.complete(now, { download: null, webhookData: this.webhookData(order) }, null);
  }

  /**
   * Spec 6.2: `probability`, `heatmapUrl`, `overlayUrl` (of the headline image; null when there is none: the
   * webhooks service sets the URLs from `webhookLinks`, presigned 1 hour at each attempt), with the spec's
   * `category` and, beside them, `verdict` and `noEvidence` (docs/api-decisions.md).
   */
  webhookData(order: Order): Record<string, unknown> {
    const top = headline(order);
    return {
      fileCount: order.files.length,
      probability: top?.probability ?? null,
      category: top?.category ?? null,
      verdict: top?.verdict ?? null,
      noEvidence: top?.noEvidence ?? null,
      heatmapUrl: null,
      overlayUrl: null,
    };
  }

  private webhookLinks(order: Order): WebhookLink[] {
    const images = headlineDetection(order)?.images;
    const heatmap = stored(images?.heatmap);
    const overlay = stored(images?.overlay);
    return [...(heatmap ? [{ field: 'heatmapUrl', object: heatmap }] : []), ...(overlay ? [{ field: 'overlayUrl', object: overlay }] : [])];
  }

  /** Spec 4.7: a completed order's report prints every image's analysis (null until then). */
  reportContext(order: Order, inputs: ReportContextFile[]): Partial<ReportContextView> {
    const top = headline(order);
    if (order.state.status !== 'complete' || !top) {
      return { aiDetection: null };
    }
    const files = detectionsOf(order).flatMap((detection) => {
      const index = order.files.findIndex((file) => file.id === detection.fileId);
      const input = inputs[index];
      return input
        ? [{ ...analysisOf(detection), fileName: input.fileName, input: { ...input, examined: detection.examined ?? null }, heatmap: stored(detection.images.heatmap) }]
        : [];
    });
    return { aiDetection: { ...top, simulated: order.state.mode === 'test', files } };
  }

  linkedObjects(order: Order): StoredObjectRef[] {
    return detectionsOf(order).flatMap((detection) =>
      [detection.original, detection.images.thumbnail, detection.images.heatmap, detection.images.overlay].flatMap((ref) => stored(ref) ?? []),
    );
  }

  v3View(order: Order, uploadUrls: Record<string, string>, urls: ObjectUrls): WatermarkOrderView {
    const top = endedWithoutResult(order) ? null : headline(order);
    const options = aiDetectionOptionsOf(order.state.options);
    return {
      ...toOrderView(order, uploadUrls),
      detection: top
        ? {
            ...top,
            options: { generateHeatmap: options.generateHeatmap, generateOverlay: options.generateOverlay },
            files: detectionsOf(order).map((detection) => ({
              ...analysisOf(detection),
              fileId: detection.fileId,
              images: {
                originalUrl: urls.of(stored(detection.original)),
                thumbnailUrl: urls.of(stored(detection.images.thumbnail)),
                heatmapUrl: urls.of(stored(detection.images.heatmap)),
                overlayUrl: urls.of(stored(detection.images.overlay)),
              },
            })),
          }
        : null,
    };
  }

  /**
   * Spec 2.7: `statusCode` from the probability, the probability, the options given at creation, and the
   * headline image's original, heatmap, overlay and thumbnail (until processed, and for an order that ended without
   * a result, the common thumbnail: the input).
   */
  v2Detail(order: Order, urls: ObjectUrls): Partial<V2OrderDetailView> {
    const top = endedWithoutResult(order) ? null : headlineDetection(order);
    const options = aiDetectionOptionsOf(order.state.options);
    const thumbnailImageUrl = urls.of(stored(top?.images.thumbnail));
    return {
      ...(top
        ? {
            statusCode: aiDetectionCategoryOf(top.probability),
            aiProbability: top.probability,
            aiVerdict: aiDetectionVerdictOf(top),
            aiNoEvidence: top.noEvidence,
            originalImageUrl: urls.of(stored(top.original)),
            heatmapImageUrl: urls.of(stored(top.images.heatmap)),
            overlayImageUrl: urls.of(stored(top.images.overlay)),
          }
        : {}),
      ...(thumbnailImageUrl ? { thumbnailImageUrl } : {}),
      aiDetectionOptions: { generateHeatmap: options.generateHeatmap, generateOverlay: options.generateOverlay },
    };
  }
}

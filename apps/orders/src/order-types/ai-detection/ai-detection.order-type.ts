import {
  AiDetectionCompletedEvent,
  aiDetectionCategoryOf,
  AiDetectionResultView,
  Events,
  Jobs,
  message,
  ObjectKeys,
  OutboxMessage,
  V2OrderDetailView,
  WatermarkOrderView,
} from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order, OrderOptions } from '../../domain/order';
import { onResult, OrderTypeDefinition, ProcessingContext } from '../order-type-definition';
import { toOrderView } from '../order-view.mapper';
import { aiDetectionOptionsOf } from './ai-detection-order.rules';

/** One image's analysis as the order keeps it (`typeResult.files[fileId]`). */
export type StoredDetection = Omit<AiDetectionCompletedEvent, 'orderId'>;

interface DetectionResults extends OrderOptions {
  files: Record<string, StoredDetection>;
}

function detectionsOf(order: Order): StoredDetection[] {
  const files = (order.state.typeResult as DetectionResults | null)?.files ?? {};
  return order.files.flatMap((file) => files[file.id] ?? []);
}

/** The order's headline: its most AI-looking image (an order is as suspicious as its worst image). */
function headline(order: Order): { probability: number; category: AiDetectionResultView['category'] } | null {
  const detections = detectionsOf(order);
  if (detections.length === 0) {
    return null;
  }
  const probability = Math.max(...detections.map((detection) => detection.probability));
  return { probability, category: aiDetectionCategoryOf(probability) };
}

/** What a test key gets: a result that says it is simulated, in the uncertain band, with no evidence. */
function simulated(fileId: string): StoredDetection {
  return {
    fileId,
    probability: 0.5,
    category: aiDetectionCategoryOf(0.5),
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
  readonly reportType = null;
  readonly startsWhen = 'confirmed' as const;

  readonly results = [
    onResult('orders-ai-detection-completed', Events.aiDetectionCompleted, (order, event, context) => {
      const detection: StoredDetection = {
        fileId: event.fileId,
        probability: event.probability,
        category: event.category,
        noEvidence: event.noEvidence,
        statement: event.statement,
        evidence: event.evidence,
        heatmapNote: event.heatmapNote,
        images: event.images,
      };
      order.recordTypeResult((current) => {
        const files = { ...((current as DetectionResults | null)?.files ?? {}), [event.fileId]: detection };
        return { files } satisfies DetectionResults;
      }, context.now);
      if (!order.outputCompleted(`${event.fileId}-1`, '') || !order.allOutputsCompleted()) {
        return [];
      }
      return order.complete(context.now, { download: null, webhookData: this.webhookData(order) }, null);
    }),
    // An image that can never be analysed fails the order with its public code; the credits come back.
    onResult('orders-ai-detection-failed', Events.aiDetectionFailed, (order, event, context) => order.outputFailed(`${event.fileId}-1`, event.code, context.now)),
  ];

  startLive(order: Order, { buckets }: ProcessingContext): OutboxMessage[] {
    const { state } = order;
    const options = aiDetectionOptionsOf(state.options);
    return order.files.map((file) =>
      message(Jobs.aiDetect, {
        orderId: state.id,
        accountId: state.accountId,
        fileId: file.id,
        input: { bucket: buckets.inputs, key: ObjectKeys.input(state.accountId, state.id, file.id, file.fileName), fileName: file.fileName },
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
   * Spec 6.2: `probability`, `heatmapUrl`, `overlayUrl`. The image URLs are presigned on reads (v3, v2);
   * webhooks carry null for them (docs/api-decisions.md).
   */
  webhookData(order: Order): Record<string, unknown> {
    const top = headline(order);
    return { fileCount: order.files.length, probability: top?.probability ?? null, category: top?.category ?? null, heatmapUrl: null, overlayUrl: null };
  }

  v3View(order: Order, uploadUrls: Record<string, string>): WatermarkOrderView {
    const top = headline(order);
    const options = aiDetectionOptionsOf(order.state.options);
    return {
      ...toOrderView(order, uploadUrls),
      detection: top
        ? {
            ...top,
            options: { generateHeatmap: options.generateHeatmap, generateOverlay: options.generateOverlay },
            files: detectionsOf(order).map((detection) => ({
              fileId: detection.fileId,
              probability: detection.probability,
              category: detection.category,
              noEvidence: detection.noEvidence,
              statement: detection.statement,
              evidence: detection.evidence,
              heatmapNote: detection.heatmapNote,
            })),
          }
        : null,
    };
  }

  /** Spec 2.7: `statusCode` from the probability, the probability and the options given at creation. */
  v2Detail(order: Order): Partial<V2OrderDetailView> {
    const top = headline(order);
    const options = aiDetectionOptionsOf(order.state.options);
    return {
      ...(top ? { statusCode: top.category, aiProbability: top.probability } : {}),
      aiDetectionOptions: { generateHeatmap: options.generateHeatmap, generateOverlay: options.generateOverlay },
    };
  }
}

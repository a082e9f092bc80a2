import {
  DetectionEvidenceView,
  DetectionStatus,
  ExaminedExtractFiles,
  Events,
  ExtractResultView,
  Jobs,
  message,
  OutboxMessage,
  ReportContextFile,
  ReportContextView,
  StoredObjectRef,
  V2OrderDetailView,
  WatermarkOrderView,
} from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order, OrderFileState, OrderOptions } from '../../domain/order';
import { endsOrderJob, onResult, OrderTypeDefinition, ProcessingContext } from '../order-type-definition';
import { inputRef } from '../order-outputs';
import { toOrderView } from '../order-view.mapper';
import { simulatedExtractResult } from './simulated-extract-result';

/** How an extract result was reached, for reports (not part of the public `result`). */
export interface ResultDetails {
  confidence: number;
  method: string;
  evidence?: DetectionEvidenceView;
  /** The bytes the processor read, which a report certifies (absent for results recorded before it existed). */
  examined?: ExaminedExtractFiles;
}

/** What an extract order keeps (`typeResult`): the public summary (spec 2.4) and how it was reached. */
interface ExtractResults extends OrderOptions {
  result: ExtractResultView;
  details: ResultDetails;
}

/** Spec 3.1/4.2: unsupported and error results complete the order and refund its credit. */
const REFUNDED_RESULTS: ReadonlySet<DetectionStatus> = new Set(['unsupported', 'error']);

/** The order's result summary (spec 2.4); null until the processor answered. */
export function extractResultOf(order: Order): ExtractResultView | null {
  return (order.state.typeResult as ExtractResults | null)?.result ?? null;
}

function detailsOf(order: Order): ResultDetails | null {
  return (order.state.typeResult as ExtractResults | null)?.details ?? null;
}

/** Spec 4.2 / 4.10: one processor job per order compares the inspected file with its original. */
@Injectable()
export class WatermarkExtractOrderType implements OrderTypeDefinition {
  readonly type = 'watermarkExtract' as const;
  readonly reportType = 'watermarkDetection' as const;

  readonly results = [
    onResult('orders-extract-completed', Events.extractCompleted, (order, event, context) =>
      this.finish(
        order,
        { detectionStatus: event.detectionStatus, reportSupported: event.reportSupported, watermarkText: event.watermarkText ?? null },
        {
          confidence: event.confidence,
          method: event.method,
          ...(event.evidence ? { evidence: event.evidence } : {}),
          ...(event.examined ? { examined: event.examined } : {}),
        },
        context.now,
      ),
      endsOrderJob,
    ),
  ];

  startsOnLastFile(): boolean {
    return true;
  }

  startLive(order: Order, { buckets, now }: ProcessingContext): OutboxMessage[] {
    const { state } = order;
    const { original, inspected } = this.roles(order);
    if (!original) {
      // A v2 extract order without `includeOriginal`: the engine registers the inspected file against its
      // original, so without one the check cannot be made (unsupported, credit refunded).
      return this.finish(order, { detectionStatus: 'unsupported', reportSupported: false, watermarkText: null }, { confidence: 0, method: 'none' }, now);
    }
    const ref = (file: OrderFileState) => inputRef(order, file, buckets.inputs);
    return [
      message(Jobs.watermarkExtract, {
        orderId: state.id,
        accountId: state.accountId,
        original: ref(original),
        inspected: ref(inspected),
        algorithm: state.apiVersion === 'v2' ? 'v2' : 'v3',
      }),
    ];
  }

  startSandbox(order: Order, { now }: ProcessingContext): OutboxMessage[] {
    const { original, inspected } = this.roles(order);
    const result = simulatedExtractResult(inspected.fileName, original?.mediaKind === 'pdf', inspected.mediaKind === 'image');
    return this.finish(order, result, { confidence: result.detectionStatus === 'detected' ? 1 : 0, method: 'simulated' }, now);
  }

  /** Spec 6.2: `statusCode`, `watermarkFound`, and the text only when found and issued by this account. */
  webhookData(order: Order): Record<string, unknown> {
    const result = extractResultOf(order);
    const found = result?.detectionStatus === 'detected';
    const text = result?.watermarkText;
    return {
      statusCode: found ? 'detected' : 'undetected',
      watermarkFound: found,
      ...(found && typeof text === 'string' ? { watermarkInfo: { text } } : {}),
    };
  }

  /** Its views link to no stored object (downloads have their own routes). */
  linkedObjects(): StoredObjectRef[] {
    return [];
  }

  v3View(order: Order, uploadUrls: Record<string, string>): WatermarkOrderView {
    return { ...toOrderView(order, uploadUrls), result: extractResultOf(order) };
  }

  v2Detail(order: Order): Partial<V2OrderDetailView> {
    const result = extractResultOf(order);
    return {
      ...(result ? { statusCode: result.detectionStatus === 'detected' ? ('detected' as const) : ('undetected' as const) } : {}),
      extractedWatermarkText: result?.watermarkText ?? null,
    };
  }

  /**
   * Spec 4.2/4.8: the outcome and how it was reached (the reports service decides from it whether a report can be
   * made), and each file with the bytes the processor examined.
   */
  reportContext(order: Order, inputs: ReportContextFile[]): Partial<ReportContextView> {
    const result = extractResultOf(order);
    const details = detailsOf(order);
    const examined = details?.examined;
    return {
      files: inputs.map((file) => ({ ...file, examined: (file.role === 'original' || file.role === 'inspected' ? examined?.[file.role] : undefined) ?? null })),
      result,
      confidence: details?.confidence ?? null,
      method: details?.method ?? null,
      evidence: details?.evidence ?? null,
      detectionStatus: result?.detectionStatus ?? null,
    };
  }

  /** Records the outcome and completes the order (unsupported and error results refund the credit). */
  private finish(order: Order, result: ExtractResultView, details: ResultDetails, now: Date): OutboxMessage[] {
    const refund = REFUNDED_RESULTS.has(result.detectionStatus) ? `extract ${result.detectionStatus}` : undefined;
    order.recordTypeResult(() => ({ result, details }) satisfies ExtractResults, now, refund);
    const found = result.detectionStatus === 'detected';
    return order.complete(now, {
      extract: { statusCode: found ? 'detected' : 'undetected', watermarkFound: found, watermarkText: found ? result.watermarkText : null },
      webhookData: this.webhookData(order),
    });
  }

  private roles(order: Order): { original?: OrderFileState; inspected: OrderFileState } {
    const inspected = order.files.find((file) => file.role === 'inspected');
    if (!inspected) {
      throw new Error(`extract order ${order.id} has no file to inspect`);
    }
    return { original: order.files.find((file) => file.role === 'original'), inspected };
  }
}

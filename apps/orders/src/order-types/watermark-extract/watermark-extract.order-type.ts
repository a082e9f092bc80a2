import { Events, ExtractResultView, Jobs, message, OutboxMessage, StoredObjectRef, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order, OrderFileState, ResultDetails } from '../../domain/order';
import { onResult, OrderTypeDefinition, ProcessingContext } from '../order-type-definition';
import { inputRef } from '../order-outputs';
import { toOrderView } from '../order-view.mapper';
import { simulatedExtractResult } from './simulated-extract-result';

/** Spec 4.2 / 4.10: one processor job per order compares the inspected file with its original. */
@Injectable()
export class WatermarkExtractOrderType implements OrderTypeDefinition {
  readonly type = 'watermarkExtract' as const;
  readonly reportType = 'watermarkDetection' as const;
  readonly startsWhen = 'filesUploaded' as const;

  readonly results = [
    onResult('orders-extract-completed', Events.extractCompleted, (order, event, context) =>
      this.finish(
        order,
        { detectionStatus: event.detectionStatus, reportSupported: event.reportSupported, watermarkText: event.watermarkText ?? null },
        { confidence: event.confidence, method: event.method, ...(event.evidence ? { evidence: event.evidence } : {}) },
        context.now,
      ),
    ),
  ];

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
    const found = order.state.result?.detectionStatus === 'detected';
    const text = order.state.result?.watermarkText;
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
    return toOrderView(order, uploadUrls);
  }

  v2Detail({ state }: Order): Partial<V2OrderDetailView> {
    return {
      ...(state.result ? { statusCode: state.result.detectionStatus === 'detected' ? ('detected' as const) : ('undetected' as const) } : {}),
      extractedWatermarkText: state.result?.watermarkText ?? null,
    };
  }

  /** Records the outcome and completes the order (unsupported and error results refund the credit). */
  private finish(order: Order, result: ExtractResultView, details: ResultDetails, now: Date): OutboxMessage[] {
    order.recordResult(result, details, now);
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

import { Events, Jobs, message, OutboxMessage, StoredObjectRef, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order } from '../../domain/order';
import { SampleFiles } from '../../sandbox/sample-files';
import { ProcessingContext, onResult, OrderTypeDefinition } from '../order-type-definition';
import { completeWithSamples, finishOutputs, inputRef, outputsPackage, plannedOutputRef } from '../order-outputs';
import { toOrderView } from '../order-view.mapper';

/** Spec 4.1 / 4.9: one output per watermark text, each embedded by its own processor job. */
@Injectable()
export class WatermarkEmbedOrderType implements OrderTypeDefinition {
  readonly type = 'watermarkEmbed' as const;
  readonly reportType = null;

  readonly results = [
    onResult('orders-output-processing', Events.outputProcessing, (order, event, context) => order.outputStarted(event.outputFileId, context.now)),
    onResult(
      'orders-output-completed',
      Events.outputCompleted,
      (order, event, context) =>
        order.outputCompleted(event.outputFileId, event.objectKey, context.now, event.packageKey) && order.allOutputsCompleted()
          ? finishOutputs(order, context, this.webhookData(order))
          : [],
      (event) => event.outputFileId,
    ),
    onResult('orders-output-failed', Events.outputFailed, (order, event, context) => order.outputFailed(event.outputFileId, event.code, context.now), (event) => event.outputFileId),
    // Also the end of an anti-AI job whose attempts ran out (the processor reports both kinds of output the same way).
    onResult('orders-output-delayed', Events.outputDelayed, (order, _event, context) => order.processingDelayed(context.now), (event) => event.outputFileId),
  ];

  constructor(private readonly samples: SampleFiles) {}

  startsOnLastFile(): boolean {
    return true;
  }

  startLive(order: Order, { buckets }: ProcessingContext): OutboxMessage[] {
    const { state } = order;
    const zip = outputsPackage(order, buckets.outputs);
    return order.outputs.map((output) => {
      const input = order.files.find((file) => file.id === output.inputFileId);
      if (!input) {
        throw new Error(`output ${output.fileId} has no input file`);
      }
      return message(Jobs.watermarkEmbed, {
        orderId: state.id,
        accountId: state.accountId,
        outputFileId: output.fileId,
        text: output.watermarkText,
        mediaKind: output.mediaKind,
        // v2 orders carry v2 marks (another key version): v3 extract never detects them (spec 9.5).
        algorithm: state.apiVersion === 'v2' ? 'v2' : 'v3',
        input: inputRef(order, input, buckets.inputs),
        output: plannedOutputRef(order, output, buckets.outputs),
        ...(zip ? { package: zip } : {}),
      });
    });
  }

  startSandbox(order: Order, { now }: ProcessingContext): OutboxMessage[] {
    return completeWithSamples(order, now, this.samples.forOrder(order.outputs.length), this.webhookData(order));
  }

  webhookData(order: Order): Record<string, unknown> {
    return { fileCount: order.files.length };
  }

  /** Its views link to no stored object (downloads have their own routes). */
  linkedObjects(): StoredObjectRef[] {
    return [];
  }

  v3View(order: Order, uploadUrls: Record<string, string>): WatermarkOrderView {
    return toOrderView(order, uploadUrls);
  }

  v2Detail(order: Order): { watermarkTexts: string[] } {
    return { watermarkTexts: order.outputs.map((output) => output.watermarkText) };
  }
}

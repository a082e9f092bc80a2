import { AntiAiJob, Events, Jobs, message, ObjectKeys, OutboxMessage, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order } from '../../domain/order';
import { SampleFiles } from '../../sandbox/sample-files';
import { onResult, OrderTypeDefinition, ProcessingContext } from '../order-type-definition';
import { completeWithSamples, finishOutputs, outputDownloadName } from '../order-outputs';
import { toOrderView } from '../order-view.mapper';
import { antiAiOptionsOf } from './anti-ai-order.rules';

/**
 * Anti-AI orders (spec 1, 4.14; docs/anti-ai.md): one protected copy per image, made by the processor's
 * anti-AI job. Results are stored (downloads as for embed) or, in zero-copy mode, PUT to the client's
 * presigned targets and never kept: such an order completes without a download.
 */
@Injectable()
export class AntiAiOrderType implements OrderTypeDefinition {
  readonly type = 'antiAi' as const;
  readonly reportType = null;
  readonly startsWhen = 'filesUploaded' as const;

  readonly results = [
    onResult('orders-anti-ai-output-completed', Events.antiAiOutputCompleted, (order, event, context) => {
      if (!order.outputCompleted(event.outputFileId, event.objectKey ?? '') || !order.allOutputsCompleted()) {
        return [];
      }
      return antiAiOptionsOf(order.state.options).targets
        ? order.complete(context.now, { download: null, webhookData: this.webhookData(order) }, null)
        : finishOutputs(order, context, this.webhookData(order));
    }),
    // A file that cannot be protected or delivered fails the order with its public code; the credits come back.
    onResult('orders-anti-ai-output-failed', Events.antiAiOutputFailed, (order, event, context) => order.outputFailed(event.outputFileId, event.code, context.now)),
  ];

  constructor(private readonly samples: SampleFiles) {}

  startLive(order: Order, { buckets }: ProcessingContext): OutboxMessage[] {
    const { state } = order;
    const options = antiAiOptionsOf(state.options);
    return order.outputs.map((output) => {
      const input = order.files.find((file) => file.id === output.inputFileId);
      if (!input) {
        throw new Error(`output ${output.fileId} has no input file`);
      }
      const name = outputDownloadName(order, output);
      const target = options.targets?.[input.fileName];
      const job: AntiAiJob = {
        orderId: state.id,
        accountId: state.accountId,
        outputFileId: output.fileId,
        strength: options.strength,
        input: { bucket: buckets.inputs, key: ObjectKeys.input(state.accountId, state.id, input.id, input.fileName), fileName: input.fileName },
        ...(target ? { outputTarget: target } : { output: { bucket: buckets.outputs, key: ObjectKeys.output(state.accountId, state.id, output.fileId, name), fileName: name } }),
        ...(options.tdmPolicyUrl ? { tdmPolicyUrl: options.tdmPolicyUrl } : {}),
        ...(options.rights ? { rights: options.rights } : {}),
      };
      return message(Jobs.watermarkAntiAi, job);
    });
  }

  startSandbox(order: Order, { now }: ProcessingContext): OutboxMessage[] {
    return completeWithSamples(order, now, this.samples, this.webhookData(order));
  }

  /** Spec 6.2: `fileCount` (and `downloadUrl`, added by the webhooks service when there is a download). */
  webhookData(order: Order): Record<string, unknown> {
    return { fileCount: order.files.length };
  }

  v3View(order: Order, uploadUrls: Record<string, string>): WatermarkOrderView {
    return toOrderView(order, uploadUrls);
  }

  v2Detail(): Partial<V2OrderDetailView> {
    return {};
  }
}

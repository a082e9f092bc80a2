import { AntiAiJob, Events, Jobs, message, ObjectKeys, OutboxMessage, StoredObjectRef, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order, OrderOptions } from '../../domain/order';
import { SampleFiles } from '../../sandbox/sample-files';
import { ObjectUrls, onResult, OrderTypeDefinition, ProcessingContext } from '../order-type-definition';
import { completeWithSamples, finishOutputs, inputRef, outputDownloadName } from '../order-outputs';
import { toOrderView } from '../order-view.mapper';
import { antiAiOptionsOf } from './anti-ai-order.rules';

/** What the order keeps of its processing (`typeResult`). */
interface AntiAiResults extends OrderOptions {
  thumbnail: StoredObjectRef;
}

function thumbnailRef(order: Order, bucket: string): StoredObjectRef {
  return { bucket, key: `${ObjectKeys.orderPrefix(order.state.accountId, order.id)}thumbnail.webp`, fileName: 'thumbnail.webp' };
}

function thumbnailOf(order: Order): StoredObjectRef | null {
  return (order.state.typeResult as AntiAiResults | null)?.thumbnail ?? null;
}

/**
 * Anti-AI orders (spec 1, 4.14; docs/anti-ai.md): one protected copy per image, made by the processor's
 * anti-AI job. Results are stored (downloads as for embed) or, in zero-copy mode, PUT to the client's
 * presigned targets and never kept: such an order completes without a download.
 */
@Injectable()
export class AntiAiOrderType implements OrderTypeDefinition {
  readonly type = 'antiAi' as const;
  readonly reportType = null;

  readonly results = [
    onResult('orders-anti-ai-output-completed', Events.antiAiOutputCompleted, (order, event, context) => {
      const thumbnail = event.thumbnail;
      if (thumbnail) {
        order.recordTypeResult(() => ({ thumbnail }) satisfies AntiAiResults, context.now);
      }
      if (!order.outputCompleted(event.outputFileId, event.objectKey ?? '', context.now) || !order.allOutputsCompleted()) {
        return [];
      }
      return antiAiOptionsOf(order.state.options).targets
        ? order.complete(context.now, { download: null, webhookData: this.webhookData(order) }, null)
        : finishOutputs(order, context, this.webhookData(order));
    }, (event) => event.outputFileId),
    // A file that cannot be protected or delivered fails the order with its public code; the credits come back.
    onResult(
      'orders-anti-ai-output-failed',
      Events.antiAiOutputFailed,
      (order, event, context) => order.outputFailed(event.outputFileId, event.code, context.now),
      (event) => event.outputFileId,
    ),
  ];

  constructor(private readonly samples: SampleFiles) {}

  startsOnLastFile(): boolean {
    return true;
  }

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
        // The first file's job also writes the v2 detail thumbnail (spec 2.7).
        ...(output === order.outputs[0] ? { thumbnail: thumbnailRef(order, buckets.outputs) } : {}),
        orderId: state.id,
        accountId: state.accountId,
        outputFileId: output.fileId,
        strength: options.strength,
        input: inputRef(order, input, buckets.inputs),
        ...(target ? { outputTarget: target } : { output: { bucket: buckets.outputs, key: ObjectKeys.output(state.accountId, state.id, output.fileId, name), fileName: name } }),
        ...(options.tdmPolicyUrl ? { tdmPolicyUrl: options.tdmPolicyUrl } : {}),
        ...(options.rights ? { rights: options.rights } : {}),
      };
      return message(Jobs.watermarkAntiAi, job);
    });
  }

  startSandbox(order: Order, { now }: ProcessingContext): OutboxMessage[] {
    return completeWithSamples(order, now, this.samples.forOrder(order.outputs.length), this.webhookData(order));
  }

  /** Spec 6.2: `fileCount` (and `downloadUrl`, added by the webhooks service when there is a download). */
  webhookData(order: Order): Record<string, unknown> {
    return { fileCount: order.files.length };
  }

  linkedObjects(order: Order): StoredObjectRef[] {
    const thumbnail = thumbnailOf(order);
    return thumbnail ? [thumbnail] : [];
  }

  v3View(order: Order, uploadUrls: Record<string, string>): WatermarkOrderView {
    return toOrderView(order, uploadUrls);
  }

  /**
   * Spec 2.7: the WebP thumbnail within 740×400 the processor made; without one (not made, test keys) the
   * common thumbnail, the first input image, stays.
   */
  v2Detail(order: Order, urls: ObjectUrls): Partial<V2OrderDetailView> {
    const thumbnailImageUrl = urls.of(thumbnailOf(order));
    return thumbnailImageUrl ? { thumbnailImageUrl } : {};
  }
}

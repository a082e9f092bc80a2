import { Jobs, message, ObjectKeys, OutboxMessage, outputFileName, packageFileName, StoredObjectRef } from '@cp/contracts';
import { Order, OrderFileState, OrderOutputState } from '../domain/order';
import { ProcessingContext } from './order-type-definition';

/** `<input name>-watermarked-<output id>.<ext>` (spec 4.4 rule 2). */
export function outputDownloadName(order: Order, output: OrderOutputState): string {
  return outputFileName(order.files.find((file) => file.id === output.inputFileId)?.fileName ?? 'file', output.fileId);
}

/** Where an input file is stored (live keys; test uploads are not kept). */
export function inputRef(order: Order, file: Pick<OrderFileState, 'id' | 'fileName'>, bucket: string): StoredObjectRef {
  return { bucket, key: ObjectKeys.input(order.state.accountId, order.id, file.id, file.fileName), fileName: file.fileName };
}

/** Where an output's file is (live keys). */
export function outputRef(order: Order, output: OrderOutputState, bucket: string): StoredObjectRef {
  return { bucket, key: output.objectKey ?? '', fileName: outputDownloadName(order, output) };
}

/** Where the ZIP of all outputs is (spec 4.4 rule 1). */
export function packageRef(order: Order, bucket: string, key: string): StoredObjectRef {
  return { bucket, key, fileName: packageFileName(order.id) };
}

/**
 * All outputs of an order with files are written. One output: that file is the download and the order
 * completes. Two or more: the processor's package job makes the ZIP first (the one ZIP path, used by v2 and
 * v3 downloads alike); its `package.completed` event completes the order.
 */
export function finishOutputs(order: Order, context: ProcessingContext, webhookData: Record<string, unknown>): OutboxMessage[] {
  const bucket = context.buckets.outputs;
  if (order.outputs.length === 1) {
    const single = order.outputs[0];
    return order.complete(context.now, { download: outputRef(order, single, bucket), webhookData }, single.objectKey);
  }
  return [
    message(Jobs.watermarkPackage, {
      orderId: order.id,
      entries: order.outputs.map((output) => outputRef(order, output, bucket)),
      output: packageRef(order, bucket, ObjectKeys.package(order.state.accountId, order.id)),
    }),
  ];
}

/** Test keys (spec 4.17): every output simulated at once and `sample` (the sample file(s) of `SampleFiles`) handed out as the download. */
export function completeWithSamples(order: Order, now: Date, sample: StoredObjectRef, webhookData: Record<string, unknown>): OutboxMessage[] {
  order.outputsSimulated();
  return order.complete(now, { download: sample, webhookData });
}

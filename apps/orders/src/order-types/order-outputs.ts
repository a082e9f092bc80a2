import { Jobs, message, ObjectKeys, OutboxMessage, OutputsPackage, outputFileName, packageFileName, StoredObjectRef } from '@cp/contracts';
import { Order, OrderFileState, OrderOutputState } from '../domain/order';
import { ProcessingContext } from './order-type-definition';

/** `<input name>-watermarked-<output id>.<ext>` (spec 4.4 rule 2). */
export function outputDownloadName(order: Order, output: OrderOutputState): string {
  return outputFileName(order.files.find((file) => file.id === output.inputFileId)?.fileName ?? 'file', output.fileId);
}

/**
 * One output per input file, with no watermark text: the shape of the types that analyse or protect each file once
 * (AI detection, anti-AI), made when the order's files have their ids.
 */
export function onePerInput(files: OrderFileState[]): OrderOutputState[] {
  return files.map((file, position) => ({
    fileId: `${file.id}-1`,
    inputFileId: file.id,
    inputPosition: position,
    outputIndex: 0,
    watermarkText: '',
    status: 'pending',
    mediaKind: file.mediaKind,
    objectKey: null,
    failureCode: null,
  }));
}

/** Where an input file is stored (live keys; test uploads are not kept). */
export function inputRef(order: Order, file: Pick<OrderFileState, 'id' | 'fileName'>, bucket: string): StoredObjectRef {
  return { bucket, key: ObjectKeys.input(order.state.accountId, order.id, file.id, file.fileName), fileName: file.fileName };
}

/** Where an output's file is to be written (live keys): the key its job gets. */
export function plannedOutputRef(order: Order, output: OrderOutputState, bucket: string): StoredObjectRef {
  const fileName = outputDownloadName(order, output);
  return { bucket, key: ObjectKeys.output(order.state.accountId, order.id, output.fileId, fileName), fileName };
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
 * Orders of up to this many outputs make their ZIP with their last output (`outputsPackage`). Each of their jobs
 * carries every entry and checks that the others are stored: a few refs and `stat`s per job. Larger orders, where
 * that grows with the square of the outputs, keep the package job (whose extra trip is small beside their work).
 */
export const PACKAGE_WITH_OUTPUTS_MAX = 16;

/**
 * The ZIP the jobs of an order with several outputs make when theirs is the last output stored (issue 32): the
 * order then completes when its last output does, instead of after another trip through a package job (two
 * outbox hops and a processor's queue). Undefined for one output (it is its own download) and for large orders.
 */
export function outputsPackage(order: Order, bucket: string): OutputsPackage | undefined {
  if (order.outputs.length < 2 || order.outputs.length > PACKAGE_WITH_OUTPUTS_MAX) {
    return undefined;
  }
  return {
    entries: order.outputs.map((output) => plannedOutputRef(order, output, bucket)),
    output: packageRef(order, bucket, ObjectKeys.package(order.state.accountId, order.id)),
  };
}

/**
 * All outputs of an order with files are written. One output: that file is the download and the order
 * completes. Two or more: the ZIP is the download. When the job of the last output made it (`outputsPackage`),
 * the order completes now; otherwise (large orders, types whose jobs do not pack, two last outputs stored at the
 * same moment before either saw the other's) the processor's package job makes it first (the one ZIP path, used
 * by v2 and v3 downloads alike) and its `package.completed` event completes the order.
 */
export function finishOutputs(order: Order, context: ProcessingContext, webhookData: Record<string, unknown>): OutboxMessage[] {
  const bucket = context.buckets.outputs;
  if (order.outputs.length === 1) {
    const single = order.outputs[0];
    return order.complete(context.now, { download: outputRef(order, single, bucket), webhookData }, single.objectKey);
  }
  if (order.state.packageKey) {
    return order.complete(context.now, { download: packageRef(order, bucket, order.state.packageKey), webhookData }, order.state.packageKey);
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

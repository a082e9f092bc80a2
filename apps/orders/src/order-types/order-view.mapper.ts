import { publicOrderError, WatermarkOrderView } from '@cp/contracts';
import { Order } from '../domain/order';

/** Spec 2.1, the fields every type shares. `uploadUrls` holds fresh URLs for the files that may still be uploaded. */
export function toOrderView({ state, files, outputs, reports }: Order, uploadUrls: Record<string, string>): WatermarkOrderView {
  return {
    orderId: state.id,
    status: state.status,
    processingDelayed: state.processingDelayed,
    expiresAt: state.expiresAt.toISOString(),
    files: files.map((file) => ({ fileId: file.id, uploadUrl: uploadUrls[file.id] ?? null })),
    outputs: outputs.map((output) => ({
      fileId: output.fileId,
      inputFileId: output.inputFileId,
      outputIndex: output.outputIndex,
      watermarkText: output.watermarkText,
      status: output.status,
      mediaKind: output.mediaKind,
    })),
    // A type with a result summary (extract, spec 2.4) fills it in its `v3View`.
    result: null,
    reports: reports.map((report) => ({ locale: report.locale, status: report.status })),
    // Every way to `failed` goes through `Order.fail`, which records the code, and the code stays when the order
    // later expires. A code that is not public, or a failed row without one, is shown as PROCESSING_ERROR, as the
    // v2 detail and the failed webhook show it: a failed order always says why.
    failure: state.status === 'failed' || state.failureCode !== null ? publicOrderError(state.failureCode) : null,
  };
}

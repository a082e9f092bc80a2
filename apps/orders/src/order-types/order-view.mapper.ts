import { WatermarkOrderView } from '@cp/contracts';
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
  };
}

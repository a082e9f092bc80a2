import { WatermarkOrderView } from '@cp/contracts';
import { OrderAggregate } from './orders.repository';

/** Spec 2.1. `uploadUrls` holds fresh URLs for the files that may still be uploaded. */
export function toWatermarkOrderView({ order, files, outputs, reports }: OrderAggregate, uploadUrls: Record<string, string>): WatermarkOrderView {
  return {
    orderId: order.id,
    status: order.status,
    processingDelayed: order.processingDelayed,
    expiresAt: order.expiresAt.toISOString(),
    files: files.map((file) => ({ fileId: file.id, uploadUrl: uploadUrls[file.id] ?? null })),
    outputs: outputs.map((output) => ({
      fileId: output.fileId,
      inputFileId: output.inputFileId,
      outputIndex: output.outputIndex,
      watermarkText: output.watermarkText,
      status: output.status,
      mediaKind: output.mediaKind,
    })),
    result: order.result,
    reports: reports.map((report) => ({ locale: report.locale, status: report.status })),
  };
}

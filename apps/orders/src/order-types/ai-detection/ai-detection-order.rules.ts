import { AiDetectionOptionsDto, mediaKindOf } from '@cp/contracts';
import { Order, OrderOptions } from '../../domain/order';
import { onePerInput } from '../order-outputs';
import { NewOrder } from '../../orders/order-creation.service';

/** What an AI detection order keeps from its request (`Order.state.options`). */
export interface AiDetectionOrderOptions extends OrderOptions {
  generateHeatmap: boolean;
  generateOverlay: boolean;
  /** The analysis is the result: there is no result file to download. */
  noDownload: true;
}

/** AI detection credit cost: 1 credit per image (docs/api-decisions.md, issue 14). */
export const AI_DETECTION_CREDITS_PER_FILE = 1;

/** Creation rules: one analysis per image (tracked as one output each, with no file), 1 credit each. */
export function aiDetectionOrderRules(request: {
  files: Array<{ fileName: string; originalFileUrl?: string }>;
  options?: AiDetectionOptionsDto;
}): Pick<NewOrder, 'type' | 'credits' | 'files' | 'outputs' | 'options'> {
  const options: AiDetectionOrderOptions = {
    generateHeatmap: request.options?.generateHeatmap ?? false,
    generateOverlay: request.options?.generateOverlay ?? false,
    noDownload: true,
  };
  return {
    type: 'aiDetection',
    credits: request.files.length * AI_DETECTION_CREDITS_PER_FILE,
    files: request.files.map((file) => ({ role: 'input', fileName: file.fileName, sourceUrl: file.originalFileUrl ?? null, mediaKind: mediaKindOf(file.fileName) })),
    outputs: onePerInput,
    options,
  };
}

export function aiDetectionOptionsOf(options: OrderOptions | null): AiDetectionOrderOptions {
  return { generateHeatmap: false, generateOverlay: false, ...(options ?? {}), noDownload: true };
}

/** The client confirmed the order (spec 4.15) before its last image was in: the analysis starts with that image. */
export function isConfirmed(order: Order): boolean {
  return order.state.options?.confirmed === true;
}

/** Keeps an early confirmation with the pending order (once). */
export function recordConfirmation(order: Order, now: Date): void {
  if (!isConfirmed(order)) {
    order.amendOptions((current) => ({ ...(current ?? {}), confirmed: true }), now);
  }
}

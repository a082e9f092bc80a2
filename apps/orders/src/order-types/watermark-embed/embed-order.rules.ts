import { DomainException, ErrorCode, mediaKindOf } from '@cp/contracts';
import { OrderFileState, OrderOutputState } from '../../domain/order';
import { NewOrder } from '../../orders/order-creation.service';

interface EmbedRequest {
  files: Array<{ fileName: string; originalFileUrl?: string; watermarks: Array<{ text: string }> }>;
}

/**
 * Bound on an order's watermark texts together, in bytes as its views carry them (JSON). Every view of the order
 * (the creation answer, v3 and v2 reads, the idempotent replay) carries each text once per output and travels as
 * one NATS message, whose default limit (`max_payload`) is 1 MiB; the 1 MiB body limit alone let through orders
 * whose view was larger (100 files × 10 texts × 1,000 characters: a 1.17 MB view), which were created and charged
 * but could never be read. 256 KiB is 100 files × 10 texts of 262 ASCII characters, and leaves more room than the
 * rest of the largest view needs (file names, upload URLs, output ids: `embed-order.rules.spec.ts` measures it).
 */
export const EMBED_TEXTS_MAX_BYTES = 256 * 1024;

/** The bytes of the texts as a JSON view carries them (an escaped quote or control character counts as sent). */
function viewBytesOf(request: EmbedRequest): number {
  return request.files.reduce((sum, file) => sum + file.watermarks.reduce((bytes, watermark) => bytes + Buffer.byteLength(JSON.stringify(watermark.text)) - 2, 0), 0);
}

/**
 * Creation rules of embed orders (v3 spec 4.1, v2 spec 4.9): one output per watermark text, 1 credit each; texts over
 * `EMBED_TEXTS_MAX_BYTES` together are refused (413 `PAYLOAD_TOO_LARGE`) before anything is created or charged.
 */
export function embedOrderRules(request: EmbedRequest): Pick<NewOrder, 'type' | 'credits' | 'files' | 'outputs'> {
  const textBytes = viewBytesOf(request);
  if (textBytes > EMBED_TEXTS_MAX_BYTES) {
    throw new DomainException(ErrorCode.PAYLOAD_TOO_LARGE, `watermark texts of ${textBytes} bytes together, over ${EMBED_TEXTS_MAX_BYTES}`);
  }
  return {
    type: 'watermarkEmbed',
    credits: request.files.reduce((sum, file) => sum + file.watermarks.length, 0),
    files: request.files.map((file) => ({
      role: 'input',
      fileName: file.fileName,
      sourceUrl: file.originalFileUrl ?? null,
      mediaKind: mediaKindOf(file.fileName),
    })),
    outputs: (files) => embedOutputs(request, files),
  };
}

/** One output per watermark text, `{inputFileId}-{ordinal}`. */
function embedOutputs(request: EmbedRequest, files: OrderFileState[]): OrderOutputState[] {
  return request.files.flatMap((file, position) =>
    file.watermarks.map((watermark, outputIndex) => ({
      fileId: `${files[position].id}-${outputIndex + 1}`,
      inputFileId: files[position].id,
      inputPosition: position,
      outputIndex,
      watermarkText: watermark.text,
      status: 'pending' as const,
      mediaKind: files[position].mediaKind,
      objectKey: null,
      failureCode: null,
    })),
  );
}

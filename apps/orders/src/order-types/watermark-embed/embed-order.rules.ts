import { mediaKindOf } from '@cp/contracts';
import { OrderFileState, OrderOutputState } from '../../domain/order';
import { NewOrder } from '../../orders/order-creation.service';

interface EmbedRequest {
  files: Array<{ fileName: string; originalFileUrl?: string; watermarks: Array<{ text: string }> }>;
}

/** Creation rules of embed orders (v3 spec 4.1, v2 spec 4.9): one output per watermark text, 1 credit each. */
export function embedOrderRules(request: EmbedRequest): Pick<NewOrder, 'type' | 'credits' | 'files' | 'outputs'> {
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

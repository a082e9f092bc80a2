import { CreateEmbedOrderCommand, mediaKindOf, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreation } from './order-creation.service';
import { OrderFileEntity } from './order-file.entity';
import { OrderOutputEntity } from './order-output.entity';

/** Spec 4.1: one output per watermark text, 1 credit each. */
@Injectable()
export class CreateEmbedOrderUseCase {
  constructor(private readonly creation: OrderCreation) {}

  execute({ caller, request }: CreateEmbedOrderCommand): Promise<WatermarkOrderView> {
    return this.creation.create({
      caller,
      type: 'watermarkEmbed',
      operation: 'wtr-embed',
      idempotencyKey: request.idempotencyKey,
      request,
      credits: request.files.reduce((sum, file) => sum + file.watermarks.length, 0),
      files: request.files.map((file) => ({
        role: 'input',
        fileName: file.fileName,
        sourceUrl: file.originalFileUrl ?? null,
        mediaKind: mediaKindOf(file.fileName),
      })),
      outputs: (files) => embedOutputs(request.files, files),
    });
  }
}

/** One output per watermark text, `{inputFileId}-{ordinal}` (v3 and v2 embed). */
export function embedOutputs(requested: Array<{ watermarks: Array<{ text: string }> }>, files: OrderFileEntity[]): Array<Omit<OrderOutputEntity, 'orderId'>> {
  return requested.flatMap((file, position) =>
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

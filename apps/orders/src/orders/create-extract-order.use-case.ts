import { CreateExtractOrderCommand, mediaKindOf, WatermarkOrderView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreation } from './order-creation.service';

/** Spec 4.2: `files[0]` is the original, `files[1]` the file to inspect; 1 credit per order. */
@Injectable()
export class CreateExtractOrderUseCase {
  constructor(private readonly creation: OrderCreation) {}

  execute({ caller, request }: CreateExtractOrderCommand): Promise<WatermarkOrderView> {
    return this.creation.create({
      caller,
      type: 'watermarkExtract',
      operation: 'wtr-extract',
      idempotencyKey: request.idempotencyKey,
      request,
      credits: 1,
      files: [
        { role: 'original', fileName: request.file.originalFile.fileName, sourceUrl: null, mediaKind: mediaKindOf(request.file.originalFile.fileName) },
        { role: 'inspected', fileName: request.file.fileName, sourceUrl: null, mediaKind: mediaKindOf(request.file.fileName) },
      ],
      outputs: () => [],
    });
  }
}

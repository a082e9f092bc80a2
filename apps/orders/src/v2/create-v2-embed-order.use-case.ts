import { Clock } from '@cp/clock';
import { CreateV2EmbedOrderCommand, DomainException, ErrorCode, isV2Retired, mediaKindOf, V2EmbedOrderCreatedView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { embedOutputs } from '../orders/create-embed-order.use-case';
import { OrderCreation } from '../orders/order-creation.service';
import { toV2EmbedCreatedView } from './v2-view.mapper';

/** Spec 4.9 (deprecated, retired 2026-10-09): same order model as v3, v2 marks, v2 response shape. */
@Injectable()
export class CreateV2EmbedOrderUseCase {
  constructor(
    private readonly creation: OrderCreation,
    private readonly clock: Clock,
  ) {}

  async execute({ caller, request }: CreateV2EmbedOrderCommand): Promise<V2EmbedOrderCreatedView> {
    // The gateway answers 410 first; this keeps the rule when orders is called directly.
    if (isV2Retired(this.clock.now())) {
      throw new DomainException(ErrorCode.WATERMARK_V2_API_SUNSET);
    }
    const created = await this.creation.createOrder({
      caller,
      type: 'watermarkEmbed',
      apiVersion: 'v2',
      operation: 'v2-wtr-embed',
      conflictOnOtherBody: false,
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
    return toV2EmbedCreatedView(created);
  }
}

import { Clock } from '@cp/clock';
import { CreateV2ExtractOrderCommand, DomainException, ErrorCode, isV2Retired, mediaKindOf, V2ExtractOrderCreatedView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { OrderCreation } from '../orders/order-creation.service';
import { toV2ExtractCreatedView } from './v2-view.mapper';

/**
 * Spec 4.10: one file to inspect; `includeOriginal: true` (images only) adds an upload slot for the
 * original, stored as `original-<fileName>`. 1 credit per order.
 */
@Injectable()
export class CreateV2ExtractOrderUseCase {
  constructor(
    private readonly creation: OrderCreation,
    private readonly clock: Clock,
  ) {}

  async execute({ caller, request }: CreateV2ExtractOrderCommand): Promise<V2ExtractOrderCreatedView> {
    if (isV2Retired(this.clock.now())) {
      throw new DomainException(ErrorCode.WATERMARK_V2_API_SUNSET);
    }
    const kind = mediaKindOf(request.file.fileName);
    if (request.includeOriginal && kind === 'pdf') {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, 'includeOriginal is not supported for PDFs');
    }
    const inspected = { role: 'inspected' as const, fileName: request.file.fileName, sourceUrl: null, mediaKind: kind };
    const created = await this.creation.createOrder({
      caller,
      type: 'watermarkExtract',
      apiVersion: 'v2',
      operation: 'v2-wtr-extract',
      conflictOnOtherBody: false,
      idempotencyKey: request.idempotencyKey,
      request,
      credits: 1,
      // The same positions as v3 (original first) so processing and reports read them alike.
      files: request.includeOriginal
        ? [{ role: 'original', fileName: `original-${request.file.fileName}`, sourceUrl: null, mediaKind: 'image' }, inspected]
        : [inspected],
      outputs: () => [],
    });
    return toV2ExtractCreatedView(created);
  }
}

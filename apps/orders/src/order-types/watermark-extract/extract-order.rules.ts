import { CreateExtractOrderDto, CreateV2ExtractOrderDto, DomainException, ErrorCode, mediaKindOf } from '@cp/contracts';
import { NewOrder } from '../../orders/order-creation.service';

type ExtractRules = Pick<NewOrder, 'type' | 'credits' | 'files'>;

/** Spec 4.2: `files[0]` is the original, `files[1]` the file to inspect; 1 credit per order. */
export function extractOrderRules(request: CreateExtractOrderDto): ExtractRules {
  return {
    type: 'watermarkExtract',
    credits: 1,
    files: [
      { role: 'original', fileName: request.file.originalFile.fileName, sourceUrl: null, mediaKind: mediaKindOf(request.file.originalFile.fileName) },
      { role: 'inspected', fileName: request.file.fileName, sourceUrl: null, mediaKind: mediaKindOf(request.file.fileName) },
    ],
  };
}

/**
 * Spec 4.10: one file to inspect; `includeOriginal: true` (images only) adds an upload slot for the
 * original, stored as `original-<fileName>`. 1 credit per order.
 */
export function v2ExtractOrderRules(request: CreateV2ExtractOrderDto): ExtractRules {
  const kind = mediaKindOf(request.file.fileName);
  if (request.includeOriginal && kind === 'pdf') {
    throw new DomainException(ErrorCode.VALIDATION_FAILED, 'includeOriginal is not supported for PDFs');
  }
  const inspected = { role: 'inspected' as const, fileName: request.file.fileName, sourceUrl: null, mediaKind: kind };
  return {
    type: 'watermarkExtract',
    credits: 1,
    // The same positions as v3 (original first) so processing and reports read them alike.
    files: request.includeOriginal
      ? [{ role: 'original', fileName: `original-${request.file.fileName}`, sourceUrl: null, mediaKind: 'image' }, inspected]
      : [inspected],
  };
}

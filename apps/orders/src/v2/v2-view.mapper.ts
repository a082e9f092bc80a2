import {
  AntiAiOrderCreatedView,
  ObjectKeys,
  publicOrderError,
  v2FileFormatOf,
  v2FileTypeOf,
  V2CreatedFileView,
  V2EmbedOrderCreatedView,
  V2ExtractFileView,
  V2ExtractOrderCreatedView,
  V2OrderDetailView,
} from '@cp/contracts';
import { Order, orderNameOf, OrderFileState, OrderState } from '../domain/order';
import { CreatedOrder } from '../orders/order-creation.service';
import { INPUT_KEY_PREFIX } from '../sandbox/key-mode.strategy';

/** Spec 4.12: the storage object key for live keys; an isolated logical key (never a real object) for test keys. */
export function v2FileKey(order: Pick<OrderState, 'accountId' | 'id' | 'mode'>, file: Pick<OrderFileState, 'id' | 'fileName'>): string {
  const key = ObjectKeys.input(order.accountId, order.id, file.id, file.fileName);
  return `${INPUT_KEY_PREFIX[order.mode]}${key}`;
}

function createdFile(order: OrderState, file: OrderFileState, uploadUrls: Record<string, string>): V2CreatedFileView {
  return {
    // v2 file ids are integers; ids stay far below 2^53 (bigint sequence).
    fileId: Number(file.id),
    fileName: file.fileName,
    ...(file.sourceUrl ? { originalFileUrl: file.sourceUrl } : { uploadUrl: uploadUrls[file.id] ?? null }),
    fileKey: v2FileKey(order, file),
    fileFormat: v2FileFormatOf(file.fileName),
    fileType: v2FileTypeOf(file.fileName),
  };
}

/** The files of a creation response in the v2 shape (spec 4.9): upload URL or source URL, file key, format. */
export function toV2CreatedFiles({ order: { state: order, files }, uploadUrls }: CreatedOrder): V2CreatedFileView[] {
  return files.map((file) => createdFile(order, file, uploadUrls));
}

/** The anti-AI creation response: the v2 creation shape with the order's status. */
export function toAntiAiCreatedView(created: CreatedOrder): AntiAiOrderCreatedView {
  const { state } = created.order;
  return { orderName: orderNameOf(state), orderId: state.id, status: state.status, files: toV2CreatedFiles(created) };
}

/** Spec 4.9 response `data`. */
export function toV2EmbedCreatedView({ order: { state: order, files }, uploadUrls }: CreatedOrder): V2EmbedOrderCreatedView {
  return { orderName: orderNameOf(order), orderId: order.id, status: 'pending', files: files.map((file) => createdFile(order, file, uploadUrls)) };
}

/** Spec 4.10 response `data`: `file` is the file to inspect, `originalFile` the optional original. */
export function toV2ExtractCreatedView({ order: { state: order, files }, uploadUrls }: CreatedOrder): V2ExtractOrderCreatedView {
  const entry = (file: OrderFileState, role: V2ExtractFileView['role']): V2ExtractFileView => ({
    ...createdFile(order, file, uploadUrls),
    ...(role === 'original' ? { fileType: 'IMG' as const } : {}),
    role,
    sequence: 1,
  });
  const inspected = files.find((file) => file.role === 'inspected');
  const original = files.find((file) => file.role === 'original');
  if (!inspected) {
    throw new Error(`extract order ${order.id} has no file to inspect`);
  }
  return {
    orderName: orderNameOf(order),
    orderId: order.id,
    file: entry(inspected, 'watermarked'),
    ...(original ? { originalFile: entry(original, 'original') } : {}),
  };
}

/**
 * Spec 2.7, the fields every type shares; `typeFields` come from the order type (and may replace the
 * thumbnail), `thumbnailImageUrl` is the first stored input presigned by the caller (null when expired).
 */
export function toV2OrderDetailView({ state: order, files }: Order, thumbnailImageUrl: string | null, typeFields: Partial<V2OrderDetailView>): V2OrderDetailView {
  return {
    orderId: order.id,
    orderName: orderNameOf(order),
    type: order.type,
    channel: 'api',
    status: order.status,
    fileCount: files.length,
    thumbnailImageUrl,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    expiresAt: order.expiresAt.toISOString(),
    errors: order.status === 'failed' ? publicOrderError(order.failureCode) : null,
    ...typeFields,
  };
}

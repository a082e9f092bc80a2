import { ObjectKeys, RegisterSlotsCommand } from '@cp/contracts';
import { Order } from '../domain/order';

/**
 * What the uploads service registers for an order still waiting for its files (pending, or started at once): a
 * slot per file not in yet, each with its input object key, files given by URL with their source to fetch. null
 * when there is nothing to register (the order no longer waits, or every file is in). One builder for both ways
 * it is sent: the call after the creation's commit (and its replays), and the sweep that registers what such a call
 * lost (`RegisterMissingSlotsUseCase`); uploads inserts each file id once.
 */
export function slotRegistration(order: Order, now: Date): RegisterSlotsCommand | null {
  const waiting = order.files.filter((file) => file.status === 'awaiting_upload');
  if (!order.waitsForFiles(now) || waiting.length === 0) {
    return null;
  }
  const { state } = order;
  return {
    orderId: state.id,
    accountId: state.accountId,
    mode: state.mode,
    // the uploads service holds each upload to the input limit of the order's type
    orderType: state.type,
    // the uploads service registers nothing once the order's upload window has passed (a late call or sweep)
    orderCreatedAt: state.createdAt.toISOString(),
    files: waiting.map((file) => ({
      fileId: file.id,
      fileName: file.fileName,
      objectKey: ObjectKeys.input(state.accountId, state.id, file.id, file.fileName),
      ...(file.sourceUrl ? { sourceUrl: file.sourceUrl } : {}),
    })),
  };
}

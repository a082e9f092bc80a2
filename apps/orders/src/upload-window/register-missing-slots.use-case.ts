import { Clock } from '@cp/clock';
import { isTransientInfrastructureError } from '@cp/messaging';
import { Injectable, Logger } from '@nestjs/common';
import { OrdersRepository, WaitingOrderCursor } from '../orders/orders.repository';
import { UploadsClient } from '../orders/uploads.client';

/**
 * How old a pending order is before the sweep looks at it: its own registration call has long had its answer, and
 * its creation, whose time is taken before its statement, has committed (a pool wait and a statement take at most
 * 5 + 30 s), so no order commits behind the cursor.
 */
export const SLOT_SWEEP_DELAY_MS = 60_000;
/** How often the sweep runs. */
export const SLOT_SWEEP_INTERVAL_MS = 15_000;
/** How far back a replica's first sweep looks (after a start, orders created while no replica ran). */
export const SLOT_SWEEP_LOOKBACK_MS = 10 * 60_000;
/** Orders read, and first files asked about in one `uploads.known-slots`, per batch. */
export const SLOT_SWEEP_BATCH = 500;

/**
 * Finds orders waiting for their files whose upload slots were never registered, and registers them: pending
 * orders, and anti-AI orders with URLs, which start at once (`inProgress`) and wait for their fetches. Creation
 * registers an order's slots by a call to the uploads service after its commit; when orders dies right after the
 * commit, or the call times out, and the client does not repeat its request, the charged order would wait for files
 * nobody can upload (no upload URL) or fetch (its URL files never queued) until the upload window (for an order
 * started at once, the stuck-order sweep) fails it. Each such order is looked at once per replica, a minute after
 * its creation: its first waiting file is asked about in a batch (`uploads.known-slots`, primary-key lookups) and
 * only an order without it is loaded and registered (idempotent per file id, so two replicas or a late call
 * register nothing twice). Nothing is written per order on the creation path. The cursor is the replica's own:
 * after a restart it looks back `SLOT_SWEEP_LOOKBACK_MS`.
 */
@Injectable()
export class RegisterMissingSlotsUseCase {
  private readonly logger = new Logger(RegisterMissingSlotsUseCase.name);
  private cursor: WaitingOrderCursor | null = null;

  constructor(
    private readonly orders: OrdersRepository,
    private readonly uploads: UploadsClient,
    private readonly clock: Clock,
  ) {}

  /** One batch; returns how many orders it looked at (0: caught up). The cursor moves only once the batch is done. */
  async execute(): Promise<number> {
    const now = this.clock.now();
    const after = this.cursor ?? { createdAt: new Date(now.getTime() - SLOT_SWEEP_LOOKBACK_MS).toISOString(), id: '0' };
    const pending = await this.orders.waitingCreatedBetween(after, new Date(now.getTime() - SLOT_SWEEP_DELAY_MS), SLOT_SWEEP_BATCH);
    if (pending.length === 0) {
      return 0;
    }
    const waiting = pending.flatMap((order) => (order.awaitingFileId === null ? [] : [{ ...order, fileId: order.awaitingFileId }]));
    const known = new Set(waiting.length > 0 ? await this.uploads.knownSlots(waiting.map((order) => order.fileId)) : []);
    for (const lost of waiting.filter((order) => !known.has(order.fileId))) {
      const order = await this.orders.findOwned(lost.id, lost.accountId, lost.mode);
      if (!order) {
        continue;
      }
      try {
        await this.uploads.registerSlots(order, now);
        this.logger.warn({ orderId: order.id }, 'upload slots registered by the sweep: the call after the creation was lost');
      } catch (error) {
        // An outage holds the cursor (the batch is tried again); a refusal of this one order must not hold every
        // order after it: it is logged and left to the upload window, which fails it and gives its credits back.
        if (isTransientInfrastructureError(error)) {
          throw error;
        }
        this.logger.error({ err: error, orderId: order.id }, 'upload slots could not be registered by the sweep');
      }
    }
    this.cursor = pending[pending.length - 1].cursor;
    return pending.length;
  }
}

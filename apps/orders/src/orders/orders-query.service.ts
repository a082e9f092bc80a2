import { Clock } from '@cp/clock';
import { BatchResults, CallerContext, DomainException, ErrorCode, GetOrderQuery, WatermarkOrderView } from '@cp/contracts';
import { ANSWER_ALONE, answerEach } from '@cp/messaging';
import { Injectable, Logger } from '@nestjs/common';
import { Order } from '../domain/order';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from './object-urls.service';
import { OrderAccessService } from './order-access.service';
import { UploadsClient } from './uploads.client';

/**
 * Bytes of one `orders.getMany` reply the views may take, half of NATS's default 1 MiB payload: an order beyond it
 * is answered `alone`, and the gateway asks for it with `orders.get`.
 */
export const ORDER_READS_REPLY_BYTES = 512 * 1024;

/**
 * Largest view one reply may carry: NATS's default max_payload (1 MiB, which the stack keeps) less room for the
 * reply's envelope. A larger view could not be sent at all (the caller would wait for its timeout), so it is
 * refused with a code instead: an aiDetection order whose evidence was stored before evidence had a size limit
 * (docs/ai-detection.md) can be that large.
 */
export const ORDER_VIEW_MAX_BYTES = 1024 * 1024 - 64 * 1024;

/** A view and the bytes of its JSON: what the reply will carry, measured rather than estimated. */
interface MeasuredView {
  view: WatermarkOrderView;
  bytes: number;
}

/** The read model of `GET /api/v3/orders/{orderId}`: only the caller's orders of the key's mode, in their type's view. */
@Injectable()
export class OrdersQueryService {
  private readonly logger = new Logger(OrdersQueryService.name);

  constructor(
    private readonly access: OrderAccessService,
    private readonly types: OrderTypeRegistry,
    private readonly uploads: UploadsClient,
    private readonly urls: ObjectUrlsService,
    private readonly clock: Clock,
  ) {}

  async get(caller: CallerContext, orderId: string): Promise<WatermarkOrderView> {
    const order = await this.access.owned(caller, orderId);
    return this.sendable(order, await this.measuredView(order));
  }

  /**
   * Many reads in one statement (`orders.getMany`), each answered as `get` answers it. The views are built first
   * and measured (an aiDetection order carries every image's evidence in `typeResult`, which no estimate from the
   * order's files sees); then, in the order of the reads, each goes into the reply while the reply stays within
   * ORDER_READS_REPLY_BYTES, and the first one answered goes in whatever its size up to ORDER_VIEW_MAX_BYTES. The
   * others are answered `alone` (the gateway asks for each with `orders.get`), one too large for any reply is
   * refused with its code, and the reply itself never grows past what NATS carries.
   */
  async getMany(reads: GetOrderQuery[]): Promise<BatchResults<WatermarkOrderView>> {
    const orders = await this.access.ownedMany(reads);
    const views = await Promise.all(
      orders.map((order) =>
        order instanceof DomainException ? Promise.resolve(order) : this.measuredView(order).then((measured) => ({ order, measured }), (error: unknown) => ({ error })),
      ),
    );
    let bytes = 0;
    return answerEach(views, async (read) => {
      if (read instanceof DomainException) {
        throw read;
      }
      if ('error' in read) {
        throw read.error;
      }
      const { order, measured } = read;
      const view = this.sendable(order, measured);
      if (bytes > 0 && bytes + measured.bytes > ORDER_READS_REPLY_BYTES) {
        return ANSWER_ALONE;
      }
      bytes += measured.bytes;
      return view;
    });
  }

  private async measuredView(order: Order): Promise<MeasuredView> {
    const type = this.types.of(order);
    const view = type.v3View(order, await this.uploads.urlsFor(order, this.clock.now()), await this.urls.for(order, type.linkedObjects(order)));
    return { view, bytes: Buffer.byteLength(JSON.stringify(view), 'utf8') };
  }

  /** The view, unless it is larger than a reply can carry: refused then, with a code (and logged, with its size). */
  private sendable(order: Order, { view, bytes }: MeasuredView): WatermarkOrderView {
    if (bytes > ORDER_VIEW_MAX_BYTES) {
      this.logger.error({ orderId: order.id, type: order.state.type, bytes, limit: ORDER_VIEW_MAX_BYTES }, 'order view too large for a NATS reply; refused');
      throw new DomainException(ErrorCode.SERVER_INTERNAL_ERROR, `order ${order.id}: view of ${bytes} bytes is above ${ORDER_VIEW_MAX_BYTES}`);
    }
    return view;
  }
}

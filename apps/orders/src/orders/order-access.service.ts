import { Clock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { OrdersRepository } from './orders.repository';

/** The one ownership / expired / complete guard of reads: v3 and v2 views, downloads and report contexts. */
@Injectable()
export class OrderAccessService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly clock: Clock,
  ) {}

  /** One of the caller's orders (of the key's mode); another account's order is `notFound`, never a hint. */
  async owned(caller: CallerContext, orderId: string, notFound: ErrorCode = ErrorCode.RESOURCE_NOT_FOUND): Promise<Order> {
    const order = await this.orders.findOwned(orderId, caller.accountId, caller.mode);
    if (!order) {
      throw notFoundError(orderId, notFound);
    }
    return order;
  }

  /** `owned` for many reads at once (one statement): each entry is the order or the error its read fails with. */
  async ownedMany(reads: Array<{ caller: CallerContext; orderId: string }>): Promise<Array<Order | DomainException>> {
    const found = await this.orders.findOwnedMany(reads.map(({ caller, orderId }) => ({ orderId, accountId: caller.accountId, mode: caller.mode })));
    return found.map((order, index) => order ?? notFoundError(reads[index].orderId, ErrorCode.RESOURCE_NOT_FOUND));
  }

  /** An owned order whose results can be downloaded now: ORDER_EXPIRED after retention, VALIDATION_FAILED before completion. */
  async downloadable(caller: CallerContext, orderId: string): Promise<{ order: Order; now: Date }> {
    const order = await this.owned(caller, orderId);
    const now = this.clock.now();
    if (order.isExpired(now)) {
      throw new DomainException(ErrorCode.ORDER_EXPIRED);
    }
    if (!order.canDownload(now)) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, 'order is not a completed order with result files');
    }
    return { order, now };
  }
}

function notFoundError(orderId: string, code: ErrorCode): DomainException {
  return new DomainException(code, `order ${orderId} not found for the caller`);
}

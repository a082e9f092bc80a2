import { DomainException, EraseOrderCommand, ErrorCode, Events, OrderErasureRequestedEvent, OrderErasureView } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AccountErasureRepository } from './account-erasure.repository';

/**
 * `orders.erase-order` (`admin order erase`): one order's records are deleted and `evt.orders.order.erasure-requested`
 * is written to the outbox in the same transaction, so every other service erases its copies (issuances, slots,
 * report, deliveries, objects) once this one has; the owner gets 404 for the order from then on, as for an unknown
 * one. Whatever its status: an unfinished order's held-back jobs are released and its credits are not given back (an
 * operator's erasure is not the client's cancellation; the charge stays in the ledger). An order this use case erased
 * before (the operator asks again, its first answer lost on the way): that erasure's answer, `repeated`, nothing
 * written, so the operator can still wait for every service to confirm it (the erasure is recorded for good, ids only).
 * An unknown order, or one of another account than the command names: `RESOURCE_NOT_FOUND`, nothing written.
 */
@Injectable()
export class EraseOrderUseCase {
  private readonly logger = new Logger(EraseOrderUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly rows: AccountErasureRepository,
    private readonly outbox: OutboxWriter,
  ) {}

  async execute(command: EraseOrderCommand): Promise<OrderErasureView> {
    const view = await this.transactions.run(async (tx) => {
      const erased = await this.rows.deleteOrder(tx, command.orderId, command.accountId);
      if (!erased) {
        const earlier = await this.rows.findOrderErasure(tx, command.orderId, command.accountId);
        return earlier && { erasureId: earlier.erasureId, accountId: command.accountId, orderId: command.orderId, status: null, requestedAt: earlier.requestedAt, repeated: true };
      }
      const event: OrderErasureRequestedEvent = { erasureId: randomUUID(), accountId: erased.accountId, orderId: command.orderId };
      const envelope = await this.outbox.add(tx, Events.orderErasureRequested, event, event.erasureId);
      await this.rows.recordOrderErasure(tx, { ...event, requestedAt: envelope.occurredAt });
      this.logger.log({ ...event, status: erased.status, files: erased.files, outputs: erased.outputs, reports: erased.reports }, 'order erased: orders rows deleted');
      return { erasureId: event.erasureId, accountId: erased.accountId, orderId: command.orderId, status: erased.status, requestedAt: envelope.occurredAt, repeated: false };
    });
    if (!view) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    return view;
  }
}

import { Clock } from '@cp/clock';
import {
  EventSubjects,
  ExtractOutcome,
  OrderCompletedEvent,
  OrderFailedEvent,
  OrderStatus,
  OrderStatusChangedEvent,
  StoredObjectRef,
} from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CreditLedgerRepository } from '../credits/credit-ledger.repository';
import { OrderOutputEntity } from './order-output.entity';
import { OrderEntity, orderNameOf } from './order.entity';
import { OrderAggregate } from './orders.repository';

const FINAL: ReadonlySet<OrderStatus> = new Set(['complete', 'failed', 'expired']);

/** Status changes of an order, each with its events (outbox, same transaction) and credit effects. */
@Injectable()
export class OrderLifecycle {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly ledger: CreditLedgerRepository,
    private readonly clock: Clock,
  ) {}

  isFinal(order: OrderEntity): boolean {
    return FINAL.has(order.status);
  }

  async created(manager: EntityManager, order: OrderEntity): Promise<void> {
    await this.statusChanged(manager, order);
  }

  async startProcessing(manager: EntityManager, order: OrderEntity): Promise<void> {
    order.status = 'inProgress';
    await manager.save(order);
    await this.statusChanged(manager, order);
  }

  async complete(
    manager: EntityManager,
    aggregate: OrderAggregate,
    outcome: { download?: StoredObjectRef; extract?: ExtractOutcome },
  ): Promise<void> {
    const { order } = aggregate;
    const now = this.clock.now();
    order.status = 'complete';
    order.completedAt = now;
    await manager.save(order);
    const event: OrderCompletedEvent = {
      ...this.common(order, now),
      completedAt: now.toISOString(),
      fileCount: aggregate.files.length,
      download: outcome.download ?? null,
      extract: outcome.extract ?? null,
    };
    await this.outbox.add(manager, EventSubjects.orderCompleted, event);
    await this.statusChanged(manager, order);
  }

  /** Fails the order once: unfinished outputs fail too and the credits charged come back. */
  async fail(manager: EntityManager, aggregate: OrderAggregate, code: string): Promise<void> {
    const { order } = aggregate;
    if (this.isFinal(order)) {
      return;
    }
    const now = this.clock.now();
    order.status = 'failed';
    order.failureCode = code;
    order.failedAt = now;
    order.processingDelayed = false;
    await manager.save(order);
    const unfinished = aggregate.outputs.filter((output) => output.status !== 'completed' && output.status !== 'failed');
    if (unfinished.length > 0) {
      await manager.update(
        OrderOutputEntity,
        unfinished.map((output) => output.fileId),
        { status: 'failed' },
      );
      unfinished.forEach((output) => (output.status = 'failed'));
    }
    await this.restoreCredits(manager, order, 'order failed');
    const event: OrderFailedEvent = { ...this.common(order, now), failedAt: now.toISOString(), errorCode: code };
    await this.outbox.add(manager, EventSubjects.orderFailed, event);
    await this.statusChanged(manager, order);
  }

  /** Gives back what the order was charged, once (extract refunds use the same reference). */
  async restoreCredits(manager: EntityManager, order: OrderEntity, reason: string): Promise<void> {
    if (order.creditsCharged > 0) {
      await this.ledger.apply(manager, order.accountId, order.creditsCharged, `restore:${order.id}`, reason);
    }
  }

  private common(order: OrderEntity, now: Date) {
    return {
      orderId: order.id,
      accountId: order.accountId,
      mode: order.mode,
      orderType: order.type,
      apiVersion: order.apiVersion,
      orderName: orderNameOf(order),
      createdAt: order.createdAt.toISOString(),
      updatedAt: now.toISOString(),
    };
  }

  private async statusChanged(manager: EntityManager, order: OrderEntity): Promise<void> {
    const event: OrderStatusChangedEvent = {
      orderId: order.id,
      accountId: order.accountId,
      mode: order.mode,
      orderType: order.type,
      status: order.status,
      expiresAt: order.expiresAt.toISOString(),
      apiVersion: order.apiVersion,
    };
    await this.outbox.add(manager, EventSubjects.orderStatusChanged, event);
  }

  /**
   * Retention period over (spec 3.1 "any state with files"): the repository already moved these orders to
   * `expired` in bulk; each announces it (reports refuse downloads from then on).
   */
  async expired(manager: EntityManager, orders: OrderEntity[]): Promise<void> {
    for (const order of orders) {
      await this.statusChanged(manager, order);
    }
  }
}

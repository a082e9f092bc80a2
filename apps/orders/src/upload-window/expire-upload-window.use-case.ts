import { Clock } from '@cp/clock';
import { OrderFailureCode } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrderEntity } from '../orders/order.entity';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * Spec 3.1: an order still waiting for uploads 12 hours after creation fails with ORDER_TIMEOUT and
 * its credits come back. Orders owns this rule (the retention service does not schedule it).
 */
@Injectable()
export class ExpireUploadWindowUseCase {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly repository: OrdersRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly clock: Clock,
  ) {}

  /** Fails one batch of overdue orders; returns how many. */
  async execute(batchSize = 100): Promise<number> {
    const deadline = new Date(this.clock.nowMs() - this.config.uploadWindowMs);
    return this.dataSource.transaction(async (manager) => {
      const overdue = await manager.find(OrderEntity, {
        where: { status: 'pending', createdAt: LessThan(deadline) },
        order: { createdAt: 'ASC' },
        take: batchSize,
        lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
      });
      for (const order of overdue) {
        await this.lifecycle.fail(manager, await this.repository.withChildren(order, manager), OrderFailureCode.ORDER_TIMEOUT);
      }
      return overdue.length;
    });
  }
}

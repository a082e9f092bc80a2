import { Clock } from '@cp/clock';
import { isV2Retired, OrderFailureCode } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrderEntity } from '../orders/order.entity';
import { OrdersRepository } from '../orders/orders.repository';

/**
 * Spec 9.4: from the retirement time, v2 orders that have not started processing fail with
 * WATERMARK_V2_API_SUNSET and get their credits back (`fail` restores them once); orders already
 * processing finish normally. Uploads that complete later are refused by the upload consumer.
 */
@Injectable()
export class RetireV2OrdersUseCase {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly repository: OrdersRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly clock: Clock,
  ) {}

  /** Fails one batch of pending v2 orders once the retirement time has passed; returns how many. */
  async execute(batchSize = 100): Promise<number> {
    if (!isV2Retired(this.clock.now())) {
      return 0;
    }
    return this.dataSource.transaction(async (manager) => {
      const pending = await manager.find(OrderEntity, {
        where: { status: 'pending', apiVersion: 'v2' },
        order: { createdAt: 'ASC' },
        take: batchSize,
        lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
      });
      for (const order of pending) {
        await this.lifecycle.fail(manager, await this.repository.withChildren(order, manager), OrderFailureCode.WATERMARK_V2_API_SUNSET);
      }
      return pending.length;
    });
  }
}

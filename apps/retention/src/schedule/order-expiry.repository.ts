import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OrderExpiryEntity } from './order-expiry.entity';

export interface NewExpiry {
  orderId: string;
  accountId: string;
  expiresAt: Date;
}

/** TypeORM access to the expiry schedule. */
@Injectable()
export class OrderExpiryRepository {
  /** The first event of an order schedules it; later ones (and redeliveries) change nothing. */
  async schedule(manager: EntityManager, expiry: NewExpiry): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(OrderExpiryEntity)
      .values({ ...expiry, phase: 'scheduled', nextCheckAt: expiry.expiresAt, purgedAt: null, objectsDeleted: 0 })
      .orIgnore()
      .execute();
  }

  /**
   * Claims the next due batch, oldest first, row-locked for the caller's transaction. SKIP LOCKED lets
   * replicas share the work; a crash releases the locks, so the batch is simply claimed again.
   */
  claimDue(manager: EntityManager, now: Date, limit: number): Promise<OrderExpiryEntity[]> {
    return manager
      .getRepository(OrderExpiryEntity)
      .createQueryBuilder('expiry')
      .where(`expiry.phase <> 'done'`)
      .andWhere('expiry.next_check_at <= :now', { now })
      .orderBy('expiry.next_check_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  /** First pass done: recheck the prefix later. Second pass done: finished. */
  async purged(manager: EntityManager, rows: Array<{ expiry: OrderExpiryEntity; deleted: number }>, now: Date, recheckMs: number): Promise<void> {
    const first = rows.filter((row) => row.expiry.phase === 'scheduled');
    const second = rows.filter((row) => row.expiry.phase === 'purged');
    if (first.length > 0) {
      await manager.query(
        `UPDATE order_expiry AS e SET phase = 'purged', purged_at = $1, next_check_at = $2, objects_deleted = e.objects_deleted + d.n
           FROM unnest($3::bigint[], $4::int[]) AS d(order_id, n) WHERE e.order_id = d.order_id`,
        [now, new Date(now.getTime() + recheckMs), first.map((row) => row.expiry.orderId), first.map((row) => row.deleted)],
      );
    }
    if (second.length > 0) {
      await manager.query(
        `UPDATE order_expiry AS e SET phase = 'done', objects_deleted = e.objects_deleted + d.n
           FROM unnest($1::bigint[], $2::int[]) AS d(order_id, n) WHERE e.order_id = d.order_id`,
        [second.map((row) => row.expiry.orderId), second.map((row) => row.deleted)],
      );
    }
  }

  /** Orders did not expire these (unknown, or not due by its clock): look again later. */
  async postpone(manager: EntityManager, orderIds: string[], until: Date): Promise<void> {
    if (orderIds.length > 0) {
      await manager.query('UPDATE order_expiry SET next_check_at = $1 WHERE order_id = ANY($2::bigint[])', [until, orderIds]);
    }
  }
}

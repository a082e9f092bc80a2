import { KeyMode } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { OrderReportEntity } from '../reports/order-report.entity';
import { OrderFileEntity } from './order-file.entity';
import { OrderOutputEntity } from './order-output.entity';
import { OrderEntity } from './order.entity';

export interface OrderAggregate {
  order: OrderEntity;
  files: OrderFileEntity[];
  outputs: OrderOutputEntity[];
  reports: OrderReportEntity[];
}

/** TypeORM access to orders, their files and outputs. */
@Injectable()
export class OrdersRepository {
  constructor(@Inject(DataSource) readonly dataSource: DataSource) {}

  async findOwned(orderId: string, accountId: string, mode: KeyMode, manager: EntityManager = this.dataSource.manager): Promise<OrderAggregate | null> {
    const order = await manager.findOneBy(OrderEntity, { id: orderId, accountId, mode });
    return order ? this.withChildren(order, manager) : null;
  }

  /** Loads and row-locks an order for a state change. */
  async lock(manager: EntityManager, orderId: string): Promise<OrderAggregate | null> {
    const order = await manager.findOne(OrderEntity, { where: { id: orderId }, lock: { mode: 'pessimistic_write' } });
    return order ? this.withChildren(order, manager) : null;
  }

  /**
   * Moves the given orders whose retention period has ended to `expired` in one statement and nulls the
   * keys of their result objects (the objects are deleted next). Returns the orders changed now.
   */
  async markExpired(manager: EntityManager, orderIds: string[], now: Date): Promise<OrderEntity[]> {
    const changed = await manager
      .createQueryBuilder()
      .update(OrderEntity)
      .set({ status: 'expired', packageKey: null, processingDelayed: false, updatedAt: now })
      .where('id IN (:...ids)', { ids: orderIds })
      .andWhere(`status <> 'expired'`)
      .andWhere('expires_at <= :now', { now })
      .returning('*')
      .execute();
    const rows = (changed.raw as Array<Record<string, unknown>>).map((raw) => manager.create(OrderEntity, this.fromRaw(raw)));
    if (rows.length > 0) {
      await manager.update(OrderOutputEntity, { orderId: In(rows.map((row) => row.id)) }, { objectKey: null });
    }
    return rows;
  }

  /** Of `orderIds`, those that are `expired` now. */
  async expiredAmong(manager: EntityManager, orderIds: string[]): Promise<string[]> {
    const rows = await manager.find(OrderEntity, { select: { id: true }, where: { id: In(orderIds), status: 'expired' } });
    return rows.map((row) => row.id);
  }

  /** Orders created per UTC day (`YYYY-MM-DD` → count) in [from, to), by account and key mode. */
  async countCreatedPerDay(accountId: string, mode: KeyMode, from: Date, to: Date): Promise<Map<string, number>> {
    const rows = await this.dataSource.query<Array<{ day: string; n: number }>>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n FROM "order"
        WHERE account_id = $1 AND mode = $2 AND created_at >= $3 AND created_at < $4 GROUP BY 1`,
      [accountId, mode, from, to],
    );
    return new Map(rows.map((row) => [row.day, row.n]));
  }

  async withChildren(order: OrderEntity, manager: EntityManager): Promise<OrderAggregate> {
    const [files, outputs, reports] = await Promise.all([
      manager.find(OrderFileEntity, { where: { orderId: order.id }, order: { position: 'ASC' } }),
      manager.find(OrderOutputEntity, { where: { orderId: order.id }, order: { inputPosition: 'ASC', outputIndex: 'ASC' } }),
      manager.find(OrderReportEntity, { where: { orderId: order.id }, order: { locale: 'ASC' } }),
    ]);
    return { order, files, outputs, reports };
  }

  private fromRaw(raw: Record<string, unknown>): Partial<OrderEntity> {
    return {
      id: String(raw.id),
      accountId: String(raw.account_id),
      mode: raw.mode as OrderEntity['mode'],
      type: raw.type as OrderEntity['type'],
      apiVersion: raw.api_version as OrderEntity['apiVersion'],
      status: raw.status as OrderEntity['status'],
      expiresAt: new Date(raw.expires_at as string | Date),
      createdAt: new Date(raw.created_at as string | Date),
      updatedAt: new Date(raw.updated_at as string | Date),
    };
  }
}

import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { EntityTarget, ObjectLiteral } from 'typeorm';
import { CreditBalanceEntity } from '../credits/credit-balance.entity';
import { CreditLedgerEntryEntity } from '../credits/credit-ledger-entry.entity';
import { IdempotencyRecordEntity } from '../orders/idempotency-record.entity';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderReportEntity } from '../orders/order-report.entity';
import { OrderEntity } from '../orders/order.entity';
import { OrderErasureEntity } from './order-erasure.entity';

/** What an account's erasure deleted from the orders schema. */
export interface ErasedOrderRows {
  orders: number;
  files: number;
  outputs: number;
  reports: number;
  idempotencyRecords: number;
  ledgerEntries: number;
}

/** What one order's erasure deleted from the orders schema, and whose order it was. */
export interface ErasedOrder {
  accountId: string;
  /** Its status when erased: an unfinished one is not refunded (an operator's erasure is not a cancellation). */
  status: string;
  files: number;
  outputs: number;
  reports: number;
  idempotencyRecords: number;
}

/**
 * Every row of one account in the orders schema, deleted in the caller's transaction: its orders with their files,
 * outputs (watermark texts) and report states, its idempotency records and its credit ledger and balance.
 */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  constructor(private readonly outbox: OutboxWriter) {
    super();
  }

  async deleteAccount(tx: Transaction, accountId: string): Promise<ErasedOrderRows> {
    const db = this.db(tx);
    const orders = tableSql(db, OrderEntity);
    // The account's orders locked first, so a result being applied to one of them waits for the erasure (and then
    // finds no order) instead of writing a child row after its order's children were deleted.
    const locked = await db.query<Array<{ id: string; status: string }>>(`SELECT id::text AS id, status FROM ${orders} WHERE account_id = $1 ORDER BY id FOR UPDATE`, [accountId]);
    // Jobs of its unfinished orders still held back in the outbox are never sent: no worker writes for them any more.
    for (const order of locked.filter((row) => row.status === 'pending' || row.status === 'inProgress')) {
      await this.outbox.releaseShares(tx, order.id);
    }
    const ofOrders = async (target: EntityTarget<ObjectLiteral>): Promise<number> => {
      const [, affected] = await db.query<[unknown[], number]>(`DELETE FROM ${tableSql(db, target)} WHERE order_id IN (SELECT id FROM ${orders} WHERE account_id = $1)`, [accountId]);
      return affected;
    };
    const ofAccount = async (target: EntityTarget<ObjectLiteral>): Promise<number> => {
      const [, affected] = await db.query<[unknown[], number]>(`DELETE FROM ${tableSql(db, target)} WHERE account_id = $1`, [accountId]);
      return affected;
    };
    const files = await ofOrders(OrderFileEntity);
    const outputs = await ofOrders(OrderOutputEntity);
    const reports = await ofOrders(OrderReportEntity);
    const erasedOrders = await ofAccount(OrderEntity);
    const idempotencyRecords = await ofAccount(IdempotencyRecordEntity);
    const ledgerEntries = await ofAccount(CreditLedgerEntryEntity);
    await ofAccount(CreditBalanceEntity);
    return { orders: erasedOrders, files, outputs, reports, idempotencyRecords, ledgerEntries };
  }

  /**
   * One order's rows (the order, its files, outputs with their watermark texts, report states and the idempotency
   * records naming it), deleted in the caller's transaction; null when the account has no such order. The order is locked
   * first, as for an account; the jobs of an unfinished order still held back in the outbox are released. Its
   * credit ledger entries stay (ids and amounts only; the balance they sum to is the account's, unchanged).
   */
  async deleteOrder(tx: Transaction, orderId: string, accountId: string): Promise<ErasedOrder | null> {
    const db = this.db(tx);
    const orders = tableSql(db, OrderEntity);
    const [locked] = await db.query<Array<{ account_id: string; status: string }>>(`SELECT account_id::text AS account_id, status FROM ${orders} WHERE id = $1 AND account_id = $2 FOR UPDATE`, [
      orderId,
      accountId,
    ]);
    if (!locked) {
      return null;
    }
    if (locked.status === 'pending' || locked.status === 'inProgress') {
      await this.outbox.releaseShares(tx, orderId);
    }
    const ofOrder = async (target: EntityTarget<ObjectLiteral>, column: string): Promise<number> => {
      const [, affected] = await db.query<[unknown[], number]>(`DELETE FROM ${tableSql(db, target)} WHERE ${column} = $1`, [orderId]);
      return affected;
    };
    const files = await ofOrder(OrderFileEntity, 'order_id');
    const outputs = await ofOrder(OrderOutputEntity, 'order_id');
    const reports = await ofOrder(OrderReportEntity, 'order_id');
    const idempotencyRecords = await ofOrder(IdempotencyRecordEntity, 'order_id');
    await ofOrder(OrderEntity, 'id');
    return { accountId: locked.account_id, status: locked.status, files, outputs, reports, idempotencyRecords };
  }

  /** Records the order's erasure (`OrderErasureEntity`), in the transaction that deletes its rows. */
  async recordOrderErasure(tx: Transaction, erasure: { orderId: string; accountId: string; erasureId: string; requestedAt: string }): Promise<void> {
    const db = this.db(tx);
    await db.query(`INSERT INTO ${tableSql(db, OrderErasureEntity)} (order_id, account_id, erasure_id, requested_at) VALUES ($1, $2, $3, $4)`, [
      erasure.orderId,
      erasure.accountId,
      erasure.erasureId,
      erasure.requestedAt,
    ]);
  }

  /** The erasure of this account's order (`recordOrderErasure`); null when the account's order was never erased. */
  async findOrderErasure(tx: Transaction, orderId: string, accountId: string): Promise<{ erasureId: string; requestedAt: string } | null> {
    const db = this.db(tx);
    const [row] = await db.query<Array<{ erasure_id: string; requested_at: Date }>>(
      `SELECT erasure_id::text AS erasure_id, requested_at FROM ${tableSql(db, OrderErasureEntity)} WHERE order_id = $1 AND account_id = $2`,
      [orderId, accountId],
    );
    return row ? { erasureId: row.erasure_id, requestedAt: row.requested_at.toISOString() } : null;
  }
}

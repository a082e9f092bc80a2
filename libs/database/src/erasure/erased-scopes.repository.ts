import { Injectable } from '@nestjs/common';
import { tableSql } from '../json-rows';
import { Transaction, TransactionalRepository } from '../transaction-handle';
import { ErasedScopeEntity } from './erased-scope.entity';

/** An erased account, or one order of it. */
export interface ErasedScope {
  accountId: string;
  orderId?: string;
}

/**
 * The accounts and orders an operator erased, in the service's own schema (`erased_scope`). An erasure records its
 * scope under an advisory lock of the account (`advisoryLock`, one per schema), exclusive; whatever could write the
 * account's rows again checks under the same lock, shared. So an erasure waits for those under way (and then deletes
 * what they wrote), and those that come later wait for it and find its record.
 */
@Injectable()
export class ErasedScopesRepository extends TransactionalRepository {
  async markErased(tx: Transaction, scope: ErasedScope): Promise<void> {
    const db = this.db(tx);
    const table = tableSql(db, ErasedScopeEntity);
    await this.advisoryLock(tx, table, scope.accountId, 'exclusive');
    await db.query(`INSERT INTO ${table} (account_id, order_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [scope.accountId, scope.orderId ?? '0']);
  }

  /**
   * Whether the account, or the order of it when given, was erased. The lock first, then the check in a statement of
   * its own (`advisoryLock`): in a transaction, an erasure under way is waited for and seen, and one that starts later
   * waits until `tx` ends.
   */
  async isErased(tx: Transaction, accountId: string, orderId?: string): Promise<boolean> {
    const db = this.db(tx);
    const table = tableSql(db, ErasedScopeEntity);
    await this.advisoryLock(tx, table, accountId, 'shared');
    const rows = await db.query<unknown[]>(`SELECT 1 FROM ${table} WHERE account_id = $1 AND order_id IN (0, $2)`, [accountId, orderId ?? '0']);
    return rows.length > 0;
  }
}

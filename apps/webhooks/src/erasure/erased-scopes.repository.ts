import { ErasureScope } from '@cp/contracts';
import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ErasedScopeEntity } from './erased-scope.entity';

/**
 * The advisory lock of an account's rows against its erasure (`advisoryLock`): taken shared by what could write them
 * again (a late `account created`, a late order event, a webhook's creation), exclusive by the erasure.
 */
const ERASURE_LOCK = 'cp-webhooks-erasure';

/** The accounts and orders an operator erased (`erased_scope`): ids only. */
@Injectable()
export class ErasedScopesRepository extends TransactionalRepository {
  /** Records the erasure once every write under way for the account has committed (they hold the lock shared). */
  async markErased(tx: Transaction, scope: ErasureScope): Promise<void> {
    await this.advisoryLock(tx, ERASURE_LOCK, scope.accountId, 'exclusive');
    const db = this.db(tx);
    await db.query(`INSERT INTO ${tableSql(db, ErasedScopeEntity)} (account_id, order_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [scope.accountId, scope.orderId ?? '0']);
  }

  /**
   * Whether the account, or the order of it when given, was erased. An erasure under way is waited for, and one that
   * starts later waits until `tx` ends: the lock first, then the check in a statement of its own (`advisoryLock`).
   */
  async isErased(tx: Transaction, accountId: string, orderId?: string): Promise<boolean> {
    await this.advisoryLock(tx, ERASURE_LOCK, accountId, 'shared');
    const db = this.db(tx);
    const rows = await db.query<unknown[]>(`SELECT 1 FROM ${tableSql(db, ErasedScopeEntity)} WHERE account_id = $1 AND order_id IN (0, $2)`, [accountId, orderId ?? '0']);
    return rows.length > 0;
  }
}

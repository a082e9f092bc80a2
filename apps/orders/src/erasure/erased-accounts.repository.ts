import { tableSql, Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ErasedAccountEntity } from './erased-account.entity';

/**
 * The advisory lock of an account's rows against its erasure (`advisoryLock`): taken shared by what could write them
 * again (a credit grant, the opening of its ledger, a test order's creation), exclusive by the erasure.
 */
const ERASURE_LOCK = 'cp-orders-erasure';

/** The accounts an operator erased (`erased_account`): ids only. */
@Injectable()
export class ErasedAccountsRepository extends TransactionalRepository {
  /** Records the erasure once every grant under way for the account has committed (they hold the lock shared). */
  async markErased(tx: Transaction, accountId: string): Promise<void> {
    await this.advisoryLock(tx, ERASURE_LOCK, accountId, 'exclusive');
    const db = this.db(tx);
    await db.query(`INSERT INTO ${tableSql(db, ErasedAccountEntity)} (account_id) VALUES ($1) ON CONFLICT DO NOTHING`, [accountId]);
  }

  /**
   * Whether the account was erased. In a transaction, an erasure under way is waited for, and one that starts later
   * waits until `tx` ends: the lock first, then the check in a statement of its own, whose snapshot (read committed)
   * is taken after the wait and so sees the erasure that ended it.
   */
  async isErased(tx: Transaction, accountId: string): Promise<boolean> {
    await this.advisoryLock(tx, ERASURE_LOCK, accountId, 'shared');
    const db = this.db(tx);
    const rows = await db.query<unknown[]>(`SELECT 1 FROM ${tableSql(db, ErasedAccountEntity)} WHERE account_id = $1`, [accountId]);
    return rows.length > 0;
  }
}

import { DomainException, ErrorCode } from '@cp/contracts';
import { WriteBatch } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** Ledger and balance move together inside the caller's transaction. */
@Injectable()
export class CreditLedgerRepository {
  /**
   * Applies `amount` once per `reference` (a reference already applied changes nothing), in one statement.
   * A charge that would make the balance negative throws USAGE_LIMIT_EXCEEDED.
   */
  async apply(manager: EntityManager, accountId: string, amount: number, reference: string, reason: string): Promise<void> {
    const batch = new WriteBatch();
    this.addApply(batch, accountId, amount, reference, reason);
    await batch.execute(manager);
  }

  /**
   * Adds `apply` to a statement of several writes. At most one movement per account in a batch: PostgreSQL
   * applies only one of two changes of the same row made by one statement.
   */
  addApply(batch: WriteBatch, accountId: string, amount: number, reference: string, reason: string): void {
    const entry = batch.write(
      `INSERT INTO credit_ledger_entry (account_id, amount, reference, reason)
       VALUES (${batch.param(accountId, 'bigint')}, ${batch.param(amount, 'integer')}, ${batch.param(reference)}, ${batch.param(reason)})
       ON CONFLICT (account_id, reference) DO NOTHING RETURNING account_id, amount`,
    );
    if (amount >= 0) {
      // A credit opens the balance when the account has none yet (a missing row is a zero balance).
      batch.write(
        `INSERT INTO credit_balance (account_id, balance) SELECT account_id, amount FROM ${entry}
         ON CONFLICT (account_id) DO UPDATE SET balance = credit_balance.balance + EXCLUDED.balance`,
      );
      return;
    }
    const charged = batch.write(
      `UPDATE credit_balance b SET balance = b.balance + e.amount FROM ${entry} e
       WHERE b.account_id = e.account_id AND b.balance + e.amount >= 0 RETURNING b.account_id`,
    );
    batch.require(`NOT EXISTS (SELECT 1 FROM ${entry}) OR EXISTS (SELECT 1 FROM ${charged})`, () => new DomainException(ErrorCode.USAGE_LIMIT_EXCEEDED, `account ${accountId} has too few credits`));
  }

  async openAccount(manager: EntityManager, accountId: string): Promise<void> {
    await manager.query('INSERT INTO credit_balance (account_id, balance) VALUES ($1, 0) ON CONFLICT DO NOTHING', [accountId]);
  }

  async balance(manager: EntityManager, accountId: string): Promise<number> {
    const rows = await manager.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]);
    return rows[0]?.balance ?? 0;
  }
}

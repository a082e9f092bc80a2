import { DomainException, ErrorCode } from '@cp/contracts';
import { constraintViolated, SqlState, WriteBatch, Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';

/** The balance's CHECK constraint (`credit-balance.entity.ts`). */
const BALANCE_NOT_NEGATIVE = 'ck_credit_balance_not_negative';

/** The ledger reference of an operator grant: applied once per grant however often its event arrives. */
export function grantReference(grantId: string): string {
  return `grant:${grantId}`;
}

/** Ledger and balance move together inside the caller's transaction. */
@Injectable()
export class CreditLedgerRepository extends TransactionalRepository {
  /**
   * Applies `amount` once per `reference` (a reference already applied changes nothing), in one statement
   * (atomic with or without a transaction). A charge that would make the balance negative throws
   * USAGE_LIMIT_EXCEEDED and writes nothing.
   */
  async apply(tx: Transaction, accountId: string, amount: number, reference: string, reason: string): Promise<void> {
    const batch = new WriteBatch();
    this.addApply(batch, accountId, amount, reference, reason);
    await batch.execute(this.db(tx));
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
    // A charge: the balance's CHECK (never negative) refuses it when the balance is too low, and a missing
    // balance (zero) is inserted as the negative amount, which the CHECK refuses too; either way the whole
    // statement fails. (A CHECK failure, unlike a condition in WHERE, cannot be passed over silently.)
    batch.write(`UPDATE credit_balance b SET balance = b.balance + e.amount FROM ${entry} e WHERE b.account_id = e.account_id`);
    batch.write(
      `INSERT INTO credit_balance (account_id, balance) SELECT e.account_id, e.amount FROM ${entry} e
       WHERE NOT EXISTS (SELECT 1 FROM credit_balance c WHERE c.account_id = e.account_id)`,
    );
    batch.translate((error) =>
      constraintViolated(error, SqlState.checkViolation, BALANCE_NOT_NEGATIVE) ? new DomainException(ErrorCode.USAGE_LIMIT_EXCEEDED, `account ${accountId} has too few credits`) : undefined,
    );
  }

  async openAccount(tx: Transaction, accountId: string): Promise<void> {
    await this.db(tx).query('INSERT INTO credit_balance (account_id, balance) VALUES ($1, 0) ON CONFLICT DO NOTHING', [accountId]);
  }

  async hasEntry(tx: Transaction, accountId: string, reference: string): Promise<boolean> {
    const rows = await this.db(tx).query<unknown[]>('SELECT 1 FROM credit_ledger_entry WHERE account_id = $1 AND reference = $2', [accountId, reference]);
    return rows.length > 0;
  }

  async balance(tx: Transaction, accountId: string): Promise<number> {
    const rows = await this.db(tx).query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]);
    return rows[0]?.balance ?? 0;
  }
}

import { DomainException, ErrorCode } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** Ledger and balance move together inside the caller's transaction. */
@Injectable()
export class CreditLedgerRepository {
  /**
   * Applies `amount` once per `reference`; returns false when that reference was already applied.
   * A charge that would make the balance negative throws USAGE_LIMIT_EXCEEDED.
   */
  async apply(manager: EntityManager, accountId: string, amount: number, reference: string, reason: string): Promise<boolean> {
    const inserted = await manager.query<unknown[]>(
      `INSERT INTO credit_ledger_entry (account_id, amount, reference, reason) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, reference) DO NOTHING RETURNING id`,
      [accountId, amount, reference, reason],
    );
    if (inserted.length === 0) {
      return false;
    }
    // The balance row exists for every account that was ever credited: update it first, and open it only when
    // nothing was updated (a missing row is a zero balance), so a charge costs one statement, not two.
    if (!(await this.move(manager, accountId, amount))) {
      await this.openAccount(manager, accountId);
      if (!(await this.move(manager, accountId, amount))) {
        throw new DomainException(ErrorCode.USAGE_LIMIT_EXCEEDED, `account ${accountId} has too few credits`);
      }
    }
    return true;
  }

  /** Adds `amount` unless the balance would go negative; false when no row was changed (none, or too few credits). */
  private async move(manager: EntityManager, accountId: string, amount: number): Promise<boolean> {
    const updated = await manager.query<[unknown[], number]>(
      'UPDATE credit_balance SET balance = balance + $2 WHERE account_id = $1 AND balance + $2 >= 0 RETURNING balance',
      [accountId, amount],
    );
    return updated[1] > 0;
  }

  async openAccount(manager: EntityManager, accountId: string): Promise<void> {
    await manager.query('INSERT INTO credit_balance (account_id, balance) VALUES ($1, 0) ON CONFLICT DO NOTHING', [accountId]);
  }

  async balance(manager: EntityManager, accountId: string): Promise<number> {
    const rows = await manager.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]);
    return rows[0]?.balance ?? 0;
  }
}

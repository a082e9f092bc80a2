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
    await this.openAccount(manager, accountId);
    const updated = await manager.query<[unknown[], number]>(
      'UPDATE credit_balance SET balance = balance + $2 WHERE account_id = $1 AND balance + $2 >= 0 RETURNING balance',
      [accountId, amount],
    );
    if (updated[1] === 0) {
      throw new DomainException(ErrorCode.USAGE_LIMIT_EXCEEDED, `account ${accountId} has too few credits`);
    }
    return true;
  }

  async openAccount(manager: EntityManager, accountId: string): Promise<void> {
    await manager.query('INSERT INTO credit_balance (account_id, balance) VALUES ($1, 0) ON CONFLICT DO NOTHING', [accountId]);
  }

  async balance(manager: EntityManager, accountId: string): Promise<number> {
    const rows = await manager.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]);
    return rows[0]?.balance ?? 0;
  }
}

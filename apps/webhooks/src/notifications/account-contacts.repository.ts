import { Transaction, TransactionalRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The account's daily failure e-mail, claimed: where to send it and the stamp to put back if it is not sent. */
export interface DailyNotificationSlot {
  ownerEmail: string;
  claimedAt: Date;
  previous: Date | null;
}

/** Owner addresses kept from `evt.gateway.account.created`, and the once-a-day e-mail stamp. */
@Injectable()
export class AccountContactsRepository extends TransactionalRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    super();
  }

  async remember(tx: Transaction, accountId: string, ownerEmail: string | null): Promise<void> {
    await this.db(tx).query(
      `INSERT INTO account_contact (account_id, owner_email) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET owner_email = EXCLUDED.owner_email`,
      [accountId, ownerEmail],
    );
  }

  /**
   * Stamps the account as e-mailed at `now` when it has an owner address and was not e-mailed after `lastAllowedBefore`
   * (the caller's rule: a day before `now`); null otherwise. One statement (its own short transaction): of replicas
   * racing for the same account exactly one gets the slot, and no lock is held while the mail is sent.
   */
  async claimDailySlot(accountId: string, now: Date, lastAllowedBefore: Date): Promise<DailyNotificationSlot | null> {
    const rows = await this.dataSource.query<[Array<{ owner_email: string; previous: Date | null }>, number]>(
      `UPDATE account_contact AS c SET last_failure_email_at = $2
         FROM (SELECT account_id, last_failure_email_at AS previous FROM account_contact WHERE account_id = $1 FOR UPDATE) AS old
        WHERE c.account_id = old.account_id AND c.owner_email IS NOT NULL
          AND (c.last_failure_email_at IS NULL OR c.last_failure_email_at <= $3)
        RETURNING c.owner_email, old.previous`,
      [accountId, now, lastAllowedBefore],
    );
    const row = rows[0][0];
    return row ? { ownerEmail: row.owner_email, claimedAt: now, previous: row.previous } : null;
  }

  /** The mail of a claimed slot was not sent: the stamp goes back (unless another claim replaced it), so the next failure tries again. */
  async releaseDailySlot(accountId: string, slot: DailyNotificationSlot): Promise<void> {
    await this.dataSource.query(`UPDATE account_contact SET last_failure_email_at = $3 WHERE account_id = $1 AND last_failure_email_at = $2`, [
      accountId,
      slot.claimedAt,
      slot.previous,
    ]);
  }
}

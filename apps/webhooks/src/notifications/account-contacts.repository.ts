import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Owner addresses kept from `evt.gateway.account.created`, and the once-a-day e-mail stamp. */
@Injectable()
export class AccountContactsRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async remember(manager: EntityManager, accountId: string, ownerEmail: string | null): Promise<void> {
    await manager.query(
      `INSERT INTO account_contact (account_id, owner_email) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET owner_email = EXCLUDED.owner_email`,
      [accountId, ownerEmail],
    );
  }

  /**
   * Inside `work`'s transaction: stamps the account as e-mailed at `now` when it has an owner address and
   * was not e-mailed in the 24 hours before, and hands `work` the address. When `work` throws (the mail
   * could not be sent), the stamp rolls back so the next failure tries again. Returns whether it ran.
   */
  async withDailyNotificationSlot(accountId: string, now: Date, work: (ownerEmail: string) => Promise<void>): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager.query<[Array<{ owner_email: string }>, number]>(
        `UPDATE account_contact SET last_failure_email_at = $2
         WHERE account_id = $1 AND owner_email IS NOT NULL
           AND (last_failure_email_at IS NULL OR last_failure_email_at <= $3)
         RETURNING owner_email`,
        [accountId, now, new Date(now.getTime() - DAY_MS)],
      );
      const email = rows[0][0]?.owner_email;
      if (!email) {
        return false;
      }
      await work(email);
      return true;
    });
  }
}

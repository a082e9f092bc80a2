// The daily failure e-mail against real PostgreSQL: the mail goes out with no transaction open and no row locked.
import { ManualClock } from '@cp/clock';
import { openServiceDatabase, asTransaction } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { WEBHOOKS_ENTITIES } from '../database/entities';
import { WEBHOOKS_MIGRATIONS } from '../database/migrations';
import { MailSettings } from '../webhooks.config';
import { AccountContactsRepository } from './account-contacts.repository';
import { FailureMailer, MailMessage } from './failure-mailer';
import { DeliveryFailureNotice, NotifyDeliveryFailureUseCase } from './notify-delivery-failure.use-case';

/** Settings of a mailer whose `send` is replaced (no SMTP server, nothing written). */
const MAIL_SETTINGS_FOR_TESTS: MailSettings = { smtpUrl: undefined, timeoutMs: 1000, from: 'test@example.com', outboxDir: '/nonexistent' };

/** What the database looked like from outside while the mail was being sent. */
interface SeenDuringSend {
  to: string;
  rowLockedByOthers: boolean;
  openTransactions: number;
}

class ObservingMailer extends FailureMailer {
  readonly seen: SeenDuringSend[] = [];
  fail = false;

  constructor(
    clock: ManualClock,
    private readonly observer: () => DataSource,
    private readonly applicationName: string,
  ) {
    super(MAIL_SETTINGS_FOR_TESTS, clock);
  }

  override async send(message: MailMessage): Promise<void> {
    const observer = this.observer();
    let rowLockedByOthers = false;
    try {
      await observer.transaction((tx) => tx.query('SELECT account_id FROM account_contact WHERE account_id = $1 FOR UPDATE NOWAIT', ['42']));
    } catch {
      rowLockedByOthers = true;
    }
    const [{ count }] = await observer.query<Array<{ count: string }>>(
      `SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = $1 AND state LIKE 'idle in transaction%'`,
      [this.applicationName],
    );
    this.seen.push({ to: message.to, rowLockedByOthers, openTransactions: Number(count) });
    if (this.fail) {
      throw new Error('SMTP greeting timeout');
    }
  }
}

describe('NotifyDeliveryFailureUseCase (real PostgreSQL)', () => {
  const schema = uniqueName('it_webhooks_mail');
  const applicationName = uniqueName('it-mail');
  const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
  let service: DataSource;
  let observer: DataSource;
  let mailer: ObservingMailer;
  let notify: NotifyDeliveryFailureUseCase;
  let contacts: AccountContactsRepository;
  const notice: DeliveryFailureNotice = {
    accountId: '42',
    webhookId: 7,
    webhookName: 'orders',
    webhookUrl: 'https://hooks.example.com/x',
    eventId: 'evt_1',
    eventType: 'order.watermarkEmbed.completed',
    error: null,
    statusCode: 500,
  };

  const stamp = async (): Promise<Date | null> => {
    const rows = await observer.query<Array<{ at: Date | null }>>(`SELECT last_failure_email_at AS at FROM "${schema}".account_contact WHERE account_id = 42`);
    return rows[0].at;
  };

  beforeAll(async () => {
    const options = { url: testInfra.databaseUrl, schema, entities: [...WEBHOOKS_ENTITIES, ...MESSAGING_ENTITIES], migrations: WEBHOOKS_MIGRATIONS };
    service = await openServiceDatabase({ ...options, applicationName });
    observer = await openServiceDatabase({ ...options, applicationName: 'it-observer' });
    contacts = new AccountContactsRepository(service);
    await contacts.remember(asTransaction(service.manager), '42', 'owner@example.com');
    mailer = new ObservingMailer(clock, () => observer, applicationName);
    notify = new NotifyDeliveryFailureUseCase(contacts, mailer, clock);
  });

  afterAll(async () => {
    await observer.destroy();
    await service.query(`DROP SCHEMA "${schema}" CASCADE`);
    await service.destroy();
  });

  it('sends with no transaction open and the contact row unlocked, once a day', async () => {
    expect(await notify.execute(notice)).toBe(true);
    expect(mailer.seen).toEqual([{ to: 'owner@example.com', rowLockedByOthers: false, openTransactions: 0 }]);
    expect(await stamp()).toEqual(clock.now());
    clock.advance(23 * 3600_000);
    expect(await notify.execute(notice)).toBe(false);
    expect(mailer.seen).toHaveLength(1);
  });

  it('a mail that could not be sent gives the day back: the next failure tries again', async () => {
    clock.advance(2 * 3600_000);
    const before = await stamp();
    mailer.fail = true;
    expect(await notify.execute(notice)).toBe(false);
    expect(mailer.seen).toHaveLength(2);
    expect(mailer.seen[1]).toMatchObject({ rowLockedByOthers: false, openTransactions: 0 });
    expect(await stamp()).toEqual(before);
    mailer.fail = false;
    expect(await notify.execute(notice)).toBe(true);
    expect(mailer.seen).toHaveLength(3);
  });

  it('of replicas racing for the same account, one sends', async () => {
    clock.advance(25 * 3600_000);
    const others = [new NotifyDeliveryFailureUseCase(new AccountContactsRepository(service), mailer, clock), notify, notify];
    const results = await Promise.all(others.map((useCase) => useCase.execute(notice)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

// The statements of a failed order's early deletion against real PostgreSQL (retention's own migrations): the
// purge time set once by the first `failed` event, the claim that returns it, and the record of the deletion.
import { asTransaction, openServiceDatabase } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { RETENTION_ENTITIES } from '../database/entities';
import { RETENTION_MIGRATIONS } from '../database/migrations';
import { OrderExpiryEntity } from './order-expiry.entity';
import { NewExpiry, OrderExpiryRepository } from './order-expiry.repository';

const HOUR = 3600_000;

describe('OrderExpiryRepository: failed orders (real PostgreSQL)', () => {
  const schema = uniqueName('it_retention_failed');
  const expiries = new OrderExpiryRepository();
  const now = new Date('2026-11-01T12:00:00.000Z');
  const at = (hours: number): Date => new Date(now.getTime() + hours * HOUR);
  const expiresAt = at(30 * 24);
  let dataSource: DataSource;

  const tx = () => asTransaction(dataSource.manager);
  const order = (orderId: string, overrides: Partial<NewExpiry> = {}): NewExpiry => ({ orderId, accountId: '5', expiresAt, mode: 'live', ...overrides });
  const row = async (orderId: string): Promise<OrderExpiryEntity> => dataSource.getRepository(OrderExpiryEntity).findOneByOrFail({ orderId });

  beforeAll(async () => {
    dataSource = await openServiceDatabase({ url: testInfra.databaseUrl, schema, entities: [...RETENTION_ENTITIES, ...MESSAGING_ENTITIES], migrations: RETENTION_MIGRATIONS, applicationName: 'it' });
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('brings a scheduled order forward to its purge time; a redelivered or later failed event never pushes it back', async () => {
    await expiries.schedule(tx(), order('11'));
    await expiries.scheduleFailedPurge(tx(), order('11'), at(24));
    expect(await row('11')).toMatchObject({ phase: 'scheduled', expiresAt, nextCheckAt: at(24), failedPurgeAt: at(24), failedPurgedAt: null, objectsDeleted: 0 });

    await expiries.scheduleFailedPurge(tx(), order('11'), at(30));
    await expiries.scheduleFailedPurge(tx(), order('11'), at(20));
    await expiries.schedule(tx(), order('11', { expiresAt: at(1) }));
    expect(await row('11')).toMatchObject({ expiresAt, nextCheckAt: at(24), failedPurgeAt: at(24) });
  });

  it('schedules an order whose failed event came first (its creation event after it changes nothing), live or test', async () => {
    await expiries.scheduleFailedPurge(tx(), order('12', { mode: 'test' }), at(24));
    await expiries.schedule(tx(), order('12'));
    expect(await row('12')).toMatchObject({ accountId: '5', mode: 'test', phase: 'scheduled', expiresAt, nextCheckAt: at(24), failedPurgeAt: at(24), purgedAt: null, leasedUntil: null });
  });

  it('leaves the check at expiresAt when the grace outlasts the retention, and never delays a row already due', async () => {
    await expiries.scheduleFailedPurge(tx(), order('13', { expiresAt: at(2) }), at(24));
    expect(await row('13')).toMatchObject({ nextCheckAt: at(2), failedPurgeAt: at(24) });

    // A row postponed to be looked at again soon (e.g. its expiry came and storage kept an object).
    await expiries.schedule(tx(), order('14', { expiresAt: at(-1) }));
    await expiries.scheduleFailedPurge(tx(), order('14', { expiresAt: at(-1) }), at(24));
    expect((await row('14')).nextCheckAt).toEqual(at(-1));
  });

  it('leaves an order whose expiry already ran (purged or done) exactly as it is', async () => {
    await dataSource.query(
      `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at, purged_at, objects_deleted, mode)
       VALUES (21, 5, $1, 'purged', $2, $1, 3, 'live'), (22, 5, $1, 'done', $2, $1, 4, 'live')`,
      [at(-2), at(-1)],
    );
    const before = await Promise.all(['21', '22'].map(row));
    await expiries.scheduleFailedPurge(tx(), order('21'), at(24));
    await expiries.scheduleFailedPurge(tx(), order('22'), at(24));
    expect(await Promise.all(['21', '22'].map(row))).toEqual(before);
  });

  it('claims a row due for its purge with what the sweep needs to tell it from an expiry; records the deletion only under its lease', async () => {
    await expiries.scheduleFailedPurge(tx(), order('31'), at(-1));
    const lease = at(0.25);
    const claimed = (await expiries.claimDue(tx(), now, 100, lease)).filter((expiry) => expiry.orderId === '31');
    expect(claimed).toEqual([{ orderId: '31', accountId: '5', phase: 'scheduled', mode: 'live', leasedUntil: lease, expiresAt, failedPurgeAt: at(-1), failedPurgedAt: null }]);

    // A sweep whose lease is not the row's (it outlived it) writes nothing.
    await expiries.failedPurged(tx(), [{ expiry: { ...claimed[0], leasedUntil: at(0.1) }, deleted: 9 }], now);
    expect(await row('31')).toMatchObject({ failedPurgedAt: null, leasedUntil: lease, objectsDeleted: 0 });

    await expiries.failedPurged(tx(), [{ expiry: claimed[0], deleted: 7 }], now);
    expect(await row('31')).toMatchObject({ phase: 'scheduled', failedPurgeAt: at(-1), failedPurgedAt: now, nextCheckAt: expiresAt, leasedUntil: null, objectsDeleted: 7 });
    // Not due again until its expiry, and a redelivered failed event does not bring the deletion back.
    await expiries.scheduleFailedPurge(tx(), order('31'), at(24));
    expect((await expiries.claimDue(tx(), at(24), 100, at(25))).map((expiry) => expiry.orderId)).not.toContain('31');
    expect(await row('31')).toMatchObject({ nextCheckAt: expiresAt, failedPurgedAt: now });
  });

  it('records nothing for a row whose expiry ran meanwhile (phase no longer scheduled)', async () => {
    await expiries.scheduleFailedPurge(tx(), order('41'), at(-1));
    const [claimed] = (await expiries.claimDue(tx(), now, 100, at(0.25))).filter((expiry) => expiry.orderId === '41');
    await dataSource.query(`UPDATE order_expiry SET phase = 'purged' WHERE order_id = 41`);
    await expiries.failedPurged(tx(), [{ expiry: claimed, deleted: 3 }], now);
    expect(await row('41')).toMatchObject({ phase: 'purged', failedPurgedAt: null, objectsDeleted: 0 });
  });
});

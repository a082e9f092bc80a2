// The reconciliation's statements against real PostgreSQL (retention's own migrations): the insert of missing
// schedules and the cursor's lease.
import { asTransaction, openServiceDatabase, serviceDataSourceOptions } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { RETENTION_ENTITIES } from '../database/entities';
import { RETENTION_MIGRATIONS } from '../database/migrations';
import { OrderExpiryEntity } from './order-expiry.entity';
import { OrderExpiryRepository } from './order-expiry.repository';
import { ScheduleReconciliationRepository } from './schedule-reconciliation.repository';

describe('reconciliation statements (real PostgreSQL)', () => {
  const schema = uniqueName('it_retention_reconcile');
  const expiries = new OrderExpiryRepository();
  const reconciliation = new ScheduleReconciliationRepository();
  const now = new Date('2026-11-01T12:00:00.000Z');
  const lease = new Date(now.getTime() + 600_000);
  let dataSource: DataSource;

  const row = (orderId: string): Promise<OrderExpiryEntity | null> => dataSource.getRepository(OrderExpiryEntity).findOneBy({ orderId });
  const cursorRow = async (): Promise<Record<string, unknown>> =>
    (await dataSource.query<Array<Record<string, unknown>>>(`SELECT after_order_id::text AS after_order_id, leased_until, rows_reconciled::int AS rows_reconciled FROM schedule_reconciliation`))[0];

  beforeAll(async () => {
    const options = { url: testInfra.databaseUrl, schema, entities: [...RETENTION_ENTITIES, ...MESSAGING_ENTITIES], migrations: RETENTION_MIGRATIONS, applicationName: 'it' };
    await (await openServiceDatabase(options)).destroy();
    // Several connections: two replicas' claims at the same time.
    dataSource = await new DataSource(serviceDataSourceOptions({ ...options, poolSize: 4 })).initialize();
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  describe('OrderExpiryRepository.scheduleMissing', () => {
    it('inserts the orders without a row as scheduled and due at their expiresAt; returns only those', async () => {
      const tx = asTransaction(dataSource.manager);
      await expiries.schedule(tx, { orderId: '11', accountId: '5', expiresAt: new Date('2026-10-01T00:00:00.000Z'), mode: 'live' });
      const added = await expiries.scheduleMissing(tx, [
        { orderId: '11', accountId: '5', expiresAt: new Date('2026-09-01T00:00:00.000Z'), mode: 'live' },
        { orderId: '12', accountId: '5', expiresAt: new Date('2026-10-02T00:00:00.000Z'), mode: 'test' },
        { orderId: '13', accountId: '6', expiresAt: new Date('2026-10-03T00:00:00.000Z'), mode: 'live' },
      ]);
      expect(added.sort()).toEqual(['12', '13']);
      expect(await row('12')).toMatchObject({
        accountId: '5',
        mode: 'test',
        phase: 'scheduled',
        expiresAt: new Date('2026-10-02T00:00:00.000Z'),
        nextCheckAt: new Date('2026-10-02T00:00:00.000Z'),
        purgedAt: null,
        objectsDeleted: 0,
        leasedUntil: null,
      });
      expect((await row('11'))?.expiresAt).toEqual(new Date('2026-10-01T00:00:00.000Z'));
      expect(await expiries.scheduleMissing(tx, [])).toEqual([]);
    });

    it('leaves an existing row exactly as it is, whatever its phase and lease (a purged schedule is never restarted)', async () => {
      const tx = asTransaction(dataSource.manager);
      await dataSource.query(
        `INSERT INTO order_expiry (order_id, account_id, expires_at, phase, next_check_at, purged_at, objects_deleted, leased_until, mode)
         VALUES (21, 5, '2026-10-01T00:00:00Z', 'purged', '2026-10-01T01:00:00Z', '2026-10-01T00:00:05Z', 3, NULL, 'live'),
                (22, 5, '2026-10-01T00:00:00Z', 'done', '2026-10-01T01:00:00Z', '2026-10-01T00:00:05Z', 4, NULL, 'live'),
                (23, 5, '2026-10-01T00:00:00Z', 'scheduled', '2026-10-01T00:00:00Z', NULL, 0, '2026-11-01T12:10:00Z', 'live')`,
      );
      const before = await dataSource.getRepository(OrderExpiryEntity).find({ order: { orderId: 'ASC' }, where: [{ orderId: '21' }, { orderId: '22' }, { orderId: '23' }] });
      const again = ['21', '22', '23'].map((orderId) => ({ orderId, accountId: '7', expiresAt: new Date('2026-09-01T00:00:00.000Z'), mode: 'test' as const }));
      expect(await expiries.scheduleMissing(tx, again)).toEqual([]);
      const after = await dataSource.getRepository(OrderExpiryEntity).find({ order: { orderId: 'ASC' }, where: [{ orderId: '21' }, { orderId: '22' }, { orderId: '23' }] });
      expect(after).toEqual(before);
    });
  });

  describe('ScheduleReconciliationRepository', () => {
    it('starts with no cursor; one claim at a time wins, also when two replicas claim at once', async () => {
      const claims = await Promise.all([1, 2].map(() => dataSource.transaction((tx) => reconciliation.claim(asTransaction(tx), now, lease))));
      expect(claims.filter((claim) => claim !== null)).toEqual([{ after: null, leasedUntil: lease }]);
      expect(await dataSource.transaction((tx) => reconciliation.claim(asTransaction(tx), new Date(lease.getTime() - 1), lease))).toBeNull();
    });

    it('advances only under its lease, and keeps the cursor to the microsecond', async () => {
      const held = { after: null, leasedUntil: lease };
      const stranger = { after: null, leasedUntil: new Date(lease.getTime() + 1) };
      const to = { expiresAt: '2026-10-05T08:00:00.123456Z', orderId: '42' };
      expect(await dataSource.transaction((tx) => reconciliation.advance(asTransaction(tx), stranger, to, 9, now))).toBe(false);
      expect(await dataSource.transaction((tx) => reconciliation.advance(asTransaction(tx), held, to, 2, now))).toBe(true);
      expect(await cursorRow()).toEqual({ after_order_id: '42', leased_until: null, rows_reconciled: 2 });
      const next = await dataSource.transaction((tx) => reconciliation.claim(asTransaction(tx), now, lease));
      expect(next).toEqual({ after: to, leasedUntil: lease });
    });

    it('never moves the cursor back, even under the lease; release ends the lease and keeps the cursor', async () => {
      const held = { after: null, leasedUntil: lease };
      const behind = { expiresAt: '2026-10-05T08:00:00.123455Z', orderId: '99' };
      const sameTimeLowerId = { expiresAt: '2026-10-05T08:00:00.123456Z', orderId: '41' };
      expect(await dataSource.transaction((tx) => reconciliation.advance(asTransaction(tx), held, behind, 1, now))).toBe(false);
      expect(await dataSource.transaction((tx) => reconciliation.advance(asTransaction(tx), held, sameTimeLowerId, 1, now))).toBe(false);
      await dataSource.transaction((tx) => reconciliation.release(asTransaction(tx), held));
      expect(await cursorRow()).toEqual({ after_order_id: '42', leased_until: null, rows_reconciled: 2 });
      const later = new Date(lease.getTime() + 1000);
      expect(await dataSource.transaction((tx) => reconciliation.claim(asTransaction(tx), now, later))).toEqual({
        after: { expiresAt: '2026-10-05T08:00:00.123456Z', orderId: '42' },
        leasedUntil: later,
      });
    });

    it('a lease that ran out (its replica crashed) is claimed again', async () => {
      const afterItRanOut = new Date(lease.getTime() + 1000);
      const next = new Date(afterItRanOut.getTime() + 600_000);
      expect(await dataSource.transaction((tx) => reconciliation.claim(asTransaction(tx), afterItRanOut, next))).toMatchObject({ leasedUntil: next });
    });

    it('the entities match the migrated schema', async () => {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    });
  });
});

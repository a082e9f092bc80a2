// The walk of orders' expiries for the retention service's reconciliation, against real PostgreSQL (orders' own migrations).
import { ExpiryScheduleCursor, ExpiryScheduleView } from '@cp/contracts';
import { asTransaction } from '@cp/database';
import { uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { ExpirySchedulesRepository } from './expiry-schedules.repository';
import { openOrdersTestDatabase } from '../__fixtures__/orders-test-database';

describe('ExpirySchedulesRepository (real PostgreSQL)', () => {
  const schema = uniqueName('it_orders_schedules');
  const repository = new ExpirySchedulesRepository();
  let dataSource: DataSource;

  /** An order row as creation leaves it, with `expires_at` written as given (microseconds kept). */
  const order = async (expiresAt: string, fields: { mode?: 'live' | 'test'; status?: string; accountId?: string } = {}): Promise<string> => {
    const [row] = await dataSource.query<Array<{ id: string }>>(
      `INSERT INTO "order" (account_id, mode, type, api_version, status, expires_at, created_at)
       VALUES ($1, $2, 'watermarkEmbed', 'v3', $3, $4::timestamptz, now()) RETURNING id::text AS id`,
      [fields.accountId ?? '801', fields.mode ?? 'live', fields.status ?? 'complete', expiresAt],
    );
    return row.id;
  };

  const page = (after: ExpiryScheduleCursor | null, upTo: string, limit: number): Promise<ExpiryScheduleView[]> =>
    repository.expiringBetween(asTransaction(dataSource.manager), after, upTo, limit);

  /** Every page from the first to the bound, as the reconciliation walks them. */
  const walk = async (upTo: string, limit: number): Promise<{ pages: number; schedules: ExpiryScheduleView[] }> => {
    const schedules: ExpiryScheduleView[] = [];
    let after: ExpiryScheduleCursor | null = null;
    let pages = 0;
    for (;;) {
      const found = await page(after, upTo, limit);
      pages += 1;
      schedules.push(...found);
      if (found.length < limit) {
        return { pages, schedules };
      }
      const last = found[found.length - 1];
      after = { expiresAt: last.expiresAt, orderId: last.orderId };
    }
  };

  beforeAll(async () => {
    dataSource = await openOrdersTestDatabase(schema, 'it');
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('walks every order up to the bound once, by expiresAt then id, whatever its mode or status; none after the bound', async () => {
    const tie = '2026-10-02T00:00:00.000000Z';
    const a = await order('2026-10-01T00:00:00.000000Z', { status: 'pending' });
    const b1 = await order(tie, { mode: 'test', accountId: '802' });
    const b2 = await order(tie, { status: 'expired' });
    const b3 = await order(tie, { status: 'inProgress' });
    const c = await order('2026-10-03T00:00:00.000000Z', { status: 'failed' });
    await order('2026-10-03T00:00:00.000001Z');
    for (const limit of [1, 2, 5, 1000]) {
      const { schedules } = await walk('2026-10-03T00:00:00.000000Z', limit);
      expect(schedules.map((schedule) => schedule.orderId)).toEqual([a, b1, b2, b3, c]);
    }
    const { pages, schedules } = await walk('2026-10-03T00:00:00.000000Z', 2);
    expect(pages).toBe(3);
    expect(schedules[1]).toEqual({ orderId: b1, accountId: '802', mode: 'test', expiresAt: '2026-10-02T00:00:00.000000Z' });
    expect(await page({ expiresAt: '2026-10-03T00:00:00.000000Z', orderId: c }, '2026-10-03T00:00:00.000000Z', 10)).toEqual([]);
  });

  it('keeps expiresAt to the microsecond in the cursor: orders a microsecond apart are neither skipped nor read twice', async () => {
    const first = await order('2026-10-05T08:00:00.123456Z');
    const second = await order('2026-10-05T08:00:00.123457Z');
    const after = { expiresAt: '2026-10-05T00:00:00.000000Z', orderId: '0' };
    const [one] = await page(after, '2026-10-06T00:00:00.000000Z', 1);
    expect(one).toMatchObject({ orderId: first, expiresAt: '2026-10-05T08:00:00.123456Z' });
    const [two, none] = await page({ expiresAt: one.expiresAt, orderId: one.orderId }, '2026-10-06T00:00:00.000000Z', 2);
    expect(two).toMatchObject({ orderId: second, expiresAt: '2026-10-05T08:00:00.123457Z' });
    expect(none).toBeUndefined();
  });

  it('reads a page through idx_order_expires, and the entities match the migrated schema', async () => {
    const plan = await dataSource.transaction(async (tx) => {
      // The table is tiny here: only with sequential and bitmap scans off does the plan show how the walk is served
      // on a large one (an index scan in the page's order: no sort of every due order).
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      const rows = await tx.query<Array<{ 'QUERY PLAN': string }>>(
        `EXPLAIN SELECT id FROM "order" o WHERE (o.expires_at, o.id) > ($1::timestamptz, $2::bigint) AND o.expires_at <= $3::timestamptz ORDER BY o.expires_at, o.id LIMIT 10`,
        ['2026-10-01T00:00:00Z', '0', '2026-11-01T00:00:00Z'],
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('idx_order_expires');
    expect(plan).not.toContain('Sort');
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });
});

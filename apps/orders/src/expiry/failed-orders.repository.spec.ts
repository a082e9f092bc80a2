// The walk of failed orders for the retention service's reconciliation of failed orders, against real PostgreSQL
// (orders' own migrations).
import { FailedOrderCursor, FailedOrderView } from '@cp/contracts';
import { asTransaction } from '@cp/database';
import { uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { openOrdersTestDatabase } from '../__fixtures__/orders-test-database';
import { FailedOrdersRepository } from './failed-orders.repository';

describe('FailedOrdersRepository (real PostgreSQL)', () => {
  const schema = uniqueName('it_orders_failed');
  const repository = new FailedOrdersRepository();
  let dataSource: DataSource;

  /** An order row with `failed_at` (null: it never failed) and `expires_at` written as given (microseconds kept). */
  const order = async (failedAt: string | null, fields: { mode?: 'live' | 'test'; status?: string; accountId?: string } = {}): Promise<string> => {
    const [row] = await dataSource.query<Array<{ id: string }>>(
      `INSERT INTO "order" (account_id, mode, type, api_version, status, expires_at, failed_at, created_at)
       VALUES ($1, $2, 'watermarkEmbed', 'v3', $3, '2026-12-01T00:00:00.000001Z', $4::timestamptz, now()) RETURNING id::text AS id`,
      [fields.accountId ?? '801', fields.mode ?? 'live', fields.status ?? (failedAt ? 'failed' : 'complete'), failedAt],
    );
    return row.id;
  };

  const page = (after: FailedOrderCursor | null, upTo: string, limit: number): Promise<FailedOrderView[]> =>
    repository.failedBetween(asTransaction(dataSource.manager), after, upTo, limit);

  /** Every page from the first to the bound, as the reconciliation walks them. */
  const walk = async (upTo: string, limit: number): Promise<{ pages: number; orders: FailedOrderView[] }> => {
    const orders: FailedOrderView[] = [];
    let after: FailedOrderCursor | null = null;
    let pages = 0;
    for (;;) {
      const found = await page(after, upTo, limit);
      pages += 1;
      orders.push(...found);
      if (found.length < limit) {
        return { pages, orders };
      }
      const last = found[found.length - 1];
      after = { failedAt: last.failedAt, orderId: last.orderId };
    }
  };

  beforeAll(async () => {
    dataSource = await openOrdersTestDatabase(schema, 'it');
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('walks every failed order up to the bound once, by failedAt then id, also those expired since; never one that did not fail', async () => {
    const tie = '2026-10-02T00:00:00.000000Z';
    await order(null, { status: 'complete' });
    await order(null, { status: 'expired' });
    const a = await order('2026-10-01T00:00:00.000000Z');
    const b1 = await order(tie, { mode: 'test', accountId: '802' });
    const b2 = await order(tie, { status: 'expired' });
    const c = await order('2026-10-03T00:00:00.000000Z');
    await order('2026-10-03T00:00:00.000001Z');
    for (const limit of [1, 2, 5, 1000]) {
      const { orders } = await walk('2026-10-03T00:00:00.000000Z', limit);
      expect(orders.map((found) => found.orderId)).toEqual([a, b1, b2, c]);
    }
    const { pages, orders } = await walk('2026-10-03T00:00:00.000000Z', 2);
    expect(pages).toBe(3);
    expect(orders[1]).toEqual({ orderId: b1, accountId: '802', mode: 'test', expiresAt: '2026-12-01T00:00:00.000001Z', failedAt: tie });
    expect(await page({ failedAt: '2026-10-03T00:00:00.000000Z', orderId: c }, '2026-10-03T00:00:00.000000Z', 10)).toEqual([]);
  });

  it('reads a page through idx_order_failed, and the entities match the migrated schema', async () => {
    const plan = await dataSource.transaction(async (tx) => {
      // A tiny table: only with sequential and bitmap scans off does the plan show how a large one is served.
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      const rows = await tx.query<Array<{ 'QUERY PLAN': string }>>(
        `EXPLAIN SELECT id FROM "order" o WHERE o.failed_at IS NOT NULL AND (o.failed_at, o.id) > ($1::timestamptz, $2::bigint) AND o.failed_at <= $3::timestamptz ORDER BY o.failed_at, o.id LIMIT 10`,
        ['2026-10-01T00:00:00Z', '0', '2026-11-01T00:00:00Z'],
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('idx_order_failed');
    expect(plan).not.toContain('Sort');
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });
});

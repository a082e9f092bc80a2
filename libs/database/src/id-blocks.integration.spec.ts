// Ids a block at a time against real PostgreSQL: every id is handed out once, across concurrent takers and
// across two holders of blocks (two processes), and concurrent takers share one refill.
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { IdBlocks } from './id-blocks';
import { serviceDataSourceOptions } from './service-data-source';

describe('IdBlocks (real PostgreSQL)', () => {
  const schema = uniqueName('it_id_blocks');
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource(
      serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: [], migrations: [], applicationName: 'it-id-blocks', poolSize: 2 }),
    ).initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await dataSource.query(`CREATE TABLE "${schema}".parent (id bigserial PRIMARY KEY)`);
    await dataSource.query(`CREATE TABLE "${schema}".child (id bigserial PRIMARY KEY)`);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  const blocks = () => new IdBlocks(dataSource, { parent: { table: `"${schema}".parent`, block: 4 }, child: { table: `"${schema}".child`, block: 10 } });

  it('hands out each id once, ascending, across concurrent takers and two holders, with one refill for concurrent takers', async () => {
    const [one, two] = [blocks(), blocks()];
    const statements: string[] = [];
    const query = dataSource.query.bind(dataSource);
    const spy = jest.spyOn(dataSource, 'query').mockImplementation((sql: string, parameters?: unknown[]) => {
      statements.push(sql);
      return query(sql, parameters);
    });
    try {
      const first = await Promise.all([one.take({ parent: 1, child: 3 }), one.take({ parent: 1, child: 3 }), one.take({ parent: 1, child: 3 })]);
      expect(statements).toHaveLength(1);
      const more = await Promise.all(Array.from({ length: 6 }, (_, index) => (index % 2 ? one : two).take({ parent: 1, child: 3 })));
      const all = [...first, ...more];
      const parents = all.flatMap((ids) => ids.parent);
      const children = all.flatMap((ids) => ids.child);
      expect(new Set(parents).size).toBe(parents.length);
      expect(new Set(children).size).toBe(children.length);
      const firstChildren = first.flatMap((ids) => ids.child).map(Number);
      expect(firstChildren).toEqual([...firstChildren].sort((a, b) => a - b));
      // The sequences were advanced past every id handed out, so rows written with them never collide with defaults.
      const [{ id }] = await query<Array<{ id: string }>>(`INSERT INTO "${schema}".parent DEFAULT VALUES RETURNING id::text AS id`);
      expect(parents).not.toContain(id);
      expect(Math.max(...parents.map(Number))).toBeLessThan(Number(id));
    } finally {
      spy.mockRestore();
    }
  });

  it('takes more than a block when one taker needs more', async () => {
    const ids = await blocks().take({ parent: 1, child: 25 });
    expect(ids.child).toHaveLength(25);
    expect(new Set(ids.child).size).toBe(25);
  });
});

// Named prepared statements against real PostgreSQL: a repeated parameterised text is prepared on the
// connection (pg_prepared_statements of that backend), a one-off one is not, results stay the same, a
// failing prepared text leaves the connection usable, and `preparedStatements: false` prepares nothing.
import { testInfra, uniqueName } from '@cp/testing';
import { DataSource } from 'typeorm';
import { MAX_PREPARED_PER_CONNECTION, PREPARE_FROM_USE } from './prepared-statements';
import { serviceDataSourceOptions } from './service-data-source';

describe('PreparingClient (real PostgreSQL)', () => {
  const schema = uniqueName('it_prepared');
  const open = (preparedStatements?: boolean) =>
    new DataSource(
      serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: [], migrations: [], applicationName: 'it-prepared', poolSize: 1, preparedStatements }),
    ).initialize();
  let dataSource: DataSource;

  /** Statements prepared on the pool's single connection, by their text. */
  const preparedTexts = async (source: DataSource): Promise<string[]> =>
    (await source.query<Array<{ statement: string }>>('SELECT statement FROM pg_prepared_statements')).map((row) => row.statement);

  beforeAll(async () => {
    dataSource = await open();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await dataSource.query(`CREATE TABLE "${schema}".item (id int PRIMARY KEY, label text NOT NULL)`);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('prepares a text from its second use on and answers the same rows every time', async () => {
    const text = 'INSERT INTO item (id, label) VALUES ($1, $2) RETURNING id, label';
    const ids = Array.from({ length: PREPARE_FROM_USE + 2 }, (_, index) => index + 1);
    const answers: unknown[] = [];
    for (const id of ids) {
      answers.push(await dataSource.query(text, [id, `item ${id}`]));
    }
    expect(answers).toEqual(ids.map((id) => [{ id, label: `item ${id}` }]));
    expect(await preparedTexts(dataSource)).toContain(text);

    const read = 'SELECT label FROM item WHERE id = $1';
    expect(await dataSource.query(read, [2])).toEqual([{ label: 'item 2' }]);
    expect(await preparedTexts(dataSource)).not.toContain(read);
    expect(await dataSource.query(read, [3])).toEqual([{ label: 'item 3' }]);
    expect(await preparedTexts(dataSource)).toContain(read);
  });

  it('keeps the connection usable when a prepared text fails, and a statement without parameters is never prepared', async () => {
    const failing = 'INSERT INTO item (id, label) VALUES ($1, $2)';
    await dataSource.query(failing, [10, 'ten']);
    await expect(dataSource.query(failing, [10, 'again'])).rejects.toThrow(/duplicate key/);
    await expect(dataSource.query(failing, [10, 'again'])).rejects.toThrow(/duplicate key/);
    expect(await dataSource.query('SELECT label FROM item WHERE id = $1', [10])).toEqual([{ label: 'ten' }]);
    const plain = 'SELECT count(*)::int AS n FROM item';
    await dataSource.query(plain);
    await dataSource.query(plain);
    expect(await preparedTexts(dataSource)).not.toContain(plain);
  });

  it('re-runs a prepared statement whose result type changed (0A000) unprepared, and prepares it again afterwards', async () => {
    await dataSource.query('CREATE TABLE retyped (id int PRIMARY KEY, amount int NOT NULL)');
    await dataSource.query('INSERT INTO retyped (id, amount) VALUES (1, 7)');
    const read = 'SELECT id, amount FROM retyped WHERE id = $1';
    for (let use = 0; use < PREPARE_FROM_USE; use += 1) {
      expect(await dataSource.query(read, [1])).toEqual([{ id: 1, amount: 7 }]);
    }
    expect(await preparedTexts(dataSource)).toContain(read);
    // A newer release's migration changes the column's type under the running one's prepared statement.
    await dataSource.query('ALTER TABLE retyped ALTER COLUMN amount TYPE numeric(10, 2)');
    expect(await dataSource.query(read, [1])).toEqual([{ id: 1, amount: '7.00' }]);
    expect(await dataSource.query(read, [1])).toEqual([{ id: 1, amount: '7.00' }]);
    expect(await preparedTexts(dataSource)).toContain(read);
  });

  it('inside a transaction, fails that transaction once (it is aborted) and works on the next use', async () => {
    const read = 'SELECT amount FROM retyped WHERE id = $1';
    for (let use = 0; use < PREPARE_FROM_USE; use += 1) {
      expect(await dataSource.query(read, [1])).toEqual([{ amount: '7.00' }]);
    }
    await dataSource.query('ALTER TABLE retyped ALTER COLUMN amount TYPE bigint');
    await expect(dataSource.transaction((tx) => tx.query(read, [1]))).rejects.toThrow(/cached plan must not change result type/);
    expect(await dataSource.transaction((tx) => tx.query(read, [1]))).toEqual([{ amount: '7' }]);
    expect(await dataSource.query(read, [1])).toEqual([{ amount: '7' }]);
  });

  it(`prepares at most ${MAX_PREPARED_PER_CONNECTION} texts on one connection; further texts still run`, async () => {
    const before = (await preparedTexts(dataSource)).length;
    for (let index = 0; index < MAX_PREPARED_PER_CONNECTION + 10 - before; index += 1) {
      const text = `SELECT $1::int + ${index} AS n`;
      await dataSource.query(text, [1]);
      expect(await dataSource.query(text, [1])).toEqual([{ n: 1 + index }]);
    }
    expect((await preparedTexts(dataSource)).length).toBe(MAX_PREPARED_PER_CONNECTION);
  });

  it('prepares nothing with preparedStatements: false', async () => {
    const plainSource = await open(false);
    try {
      const text = 'SELECT label FROM item WHERE id = $1 AND $2::int = 0';
      for (let use = 0; use < PREPARE_FROM_USE + 1; use += 1) {
        expect(await plainSource.query(text, [1, 0])).toEqual([{ label: 'item 1' }]);
      }
      expect(await preparedTexts(plainSource)).toEqual([]);
    } finally {
      await plainSource.destroy();
    }
  });
});

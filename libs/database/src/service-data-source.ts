import { PreparingClient, ServiceClient } from './prepared-statements';
import { DataSource, DataSourceOptions, MixedList } from 'typeorm';

export interface ServiceDatabaseOptions {
  url: string;
  /** The PostgreSQL schema this service owns (named after the service). */
  schema: string;
  // TypeORM's own option types: classes of entities and migrations.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
  poolSize?: number;
  /** Default true: repeated statements are prepared on each connection (`PreparingClient`). */
  preparedStatements?: boolean;
  applicationName: string;
  /**
   * Longest a statement may run before PostgreSQL cancels it (SQLSTATE 57014); default 30 s. 0 leaves the
   * server's own setting (migrations: an index build may take longer).
   */
  statementTimeoutMs?: number;
  /** A session idle inside a transaction this long is ended by PostgreSQL (its locks released); default 60 s. */
  idleInTransactionTimeoutMs?: number;
  /** Longest wait for a connection from the pool (or a new one) before the query fails; default 5 s. */
  connectionTimeoutMs?: number;
}

export const DATABASE_TIMEOUT_DEFAULTS = { statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 60_000, connectionTimeoutMs: 5000 } as const;

export function serviceDataSourceOptions(options: ServiceDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    applicationName: options.applicationName,
    poolSize: options.poolSize ?? 10,
    // Raw SQL resolves unqualified table names in the service's own schema.
    extra: {
      // pg sends both timeouts in the startup message, so every connection of the pool has them from its first
      // statement on: a stuck statement or a transaction left open (a remote call awaited inside it) cannot hold
      // locks and a pool connection for ever.
      statement_timeout: options.statementTimeoutMs ?? DATABASE_TIMEOUT_DEFAULTS.statementTimeoutMs,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? DATABASE_TIMEOUT_DEFAULTS.idleInTransactionTimeoutMs,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? DATABASE_TIMEOUT_DEFAULTS.connectionTimeoutMs,
      options: `-c search_path=${quoteIdentifier(options.schema)}`,
      Client: options.preparedStatements === false ? ServiceClient : PreparingClient,
    },
  };
}

function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    throw new Error(`Invalid schema name: ${name}`);
  }
  return `"${name}"`;
}

/**
 * Opens the service's DataSource, creates its schema and runs its committed migrations.
 * An advisory lock serialises processes that migrate at the same time.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<DataSource> {
  // Migrations run on a pool of their own without the statement timeout: waiting for another replica's
  // migrations (the advisory lock) or building an index may take longer than any request should.
  const migrator = new DataSource(serviceDataSourceOptions({ ...options, poolSize: 2, preparedStatements: false, statementTimeoutMs: 0 }));
  await migrator.initialize();
  try {
    await migrateServiceDatabase(migrator, options.schema);
  } finally {
    await migrator.destroy();
  }
  const dataSource = new DataSource(serviceDataSourceOptions(options));
  await dataSource.initialize();
  return dataSource;
}

/**
 * One lock for the whole database, not one per schema: `CREATE SCHEMA IF NOT EXISTS` of one name in two sessions at
 * once fails one of them (a unique violation in pg_namespace), and a service's first migration creates its schema by
 * name, so two test schemas of one service migrated at once collided.
 */
const MIGRATIONS_LOCK = 'cp:migrations';

export async function migrateServiceDatabase(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATIONS_LOCK]);
    try {
      // TypeORM creates its migrations table inside the schema before the first migration runs.
      await runner.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [MIGRATIONS_LOCK]);
    }
  } finally {
    await runner.release();
  }
}

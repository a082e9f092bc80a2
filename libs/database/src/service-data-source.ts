import { PreparingClient } from './prepared-statements';
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
}

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
      connectionTimeoutMillis: 5000,
      options: `-c search_path=${quoteIdentifier(options.schema)}`,
      ...(options.preparedStatements === false ? {} : { Client: PreparingClient }),
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
  const dataSource = new DataSource(serviceDataSourceOptions(options));
  await dataSource.initialize();
  try {
    await migrateServiceDatabase(dataSource, options.schema);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
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

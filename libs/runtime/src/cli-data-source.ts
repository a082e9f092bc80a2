import { serviceDataSourceOptions } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { DataSource, MixedList } from 'typeorm';

/** The DataSource the TypeORM CLI uses to generate a service's migrations (tools/migrations/generate.mjs). */
export function serviceCliDataSource(options: {
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: Function[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
}): DataSource {
  return new DataSource(
    serviceDataSourceOptions({
      url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cp_migrations',
      schema: options.schema,
      entities: [...options.entities, ...MESSAGING_ENTITIES],
      migrations: options.migrations,
      applicationName: 'migration-cli',
    }),
  );
}

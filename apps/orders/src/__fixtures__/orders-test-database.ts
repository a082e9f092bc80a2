import { openServiceDatabase } from '@cp/database';
import { MESSAGING_ENTITIES } from '@cp/messaging';
import { testInfra } from '@cp/testing';
import { ORDERS_ENTITIES } from '../database/entities';
import { ORDERS_MIGRATIONS } from '../database/migrations';

/** The orders service's tables, migrated into `schema` of the test database, as the service opens them. */
export function openOrdersTestDatabase(schema: string, applicationName: string, poolSize?: number): ReturnType<typeof openServiceDatabase> {
  return openServiceDatabase({
    url: testInfra.databaseUrl,
    schema,
    entities: [...ORDERS_ENTITIES, ...MESSAGING_ENTITIES],
    migrations: ORDERS_MIGRATIONS,
    applicationName,
    ...(poolSize === undefined ? {} : { poolSize }),
  });
}

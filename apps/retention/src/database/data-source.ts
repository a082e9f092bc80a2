// DataSource for the TypeORM CLI: `npm run migration:generate -- retention <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { RETENTION_ENTITIES, RETENTION_SCHEMA } from './entities';
import { RETENTION_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: RETENTION_SCHEMA, entities: RETENTION_ENTITIES, migrations: RETENTION_MIGRATIONS });

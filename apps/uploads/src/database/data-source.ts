// DataSource for the TypeORM CLI: `npm run migration:generate -- uploads <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { UPLOADS_ENTITIES, UPLOADS_SCHEMA } from './entities';
import { UPLOADS_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: UPLOADS_SCHEMA, entities: UPLOADS_ENTITIES, migrations: UPLOADS_MIGRATIONS });

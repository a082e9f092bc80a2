// DataSource for the TypeORM CLI: `npm run migration:generate -- reports <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { REPORTS_ENTITIES, REPORTS_SCHEMA } from './entities';
import { REPORTS_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: REPORTS_SCHEMA, entities: REPORTS_ENTITIES, migrations: REPORTS_MIGRATIONS });

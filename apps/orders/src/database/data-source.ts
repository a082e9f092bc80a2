// DataSource for the TypeORM CLI: `npm run migration:generate -- orders <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { ORDERS_ENTITIES, ORDERS_SCHEMA } from './entities';
import { ORDERS_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: ORDERS_SCHEMA, entities: ORDERS_ENTITIES, migrations: ORDERS_MIGRATIONS });

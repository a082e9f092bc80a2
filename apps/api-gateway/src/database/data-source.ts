// DataSource for the TypeORM CLI: `npm run migration:generate -- api-gateway <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { GATEWAY_ENTITIES, GATEWAY_SCHEMA } from './entities';
import { GATEWAY_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: GATEWAY_SCHEMA, entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS });

// DataSource for the TypeORM CLI: `npm run migration:generate -- webhooks <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { WEBHOOKS_ENTITIES, WEBHOOKS_SCHEMA } from './entities';
import { WEBHOOKS_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: WEBHOOKS_SCHEMA, entities: WEBHOOKS_ENTITIES, migrations: WEBHOOKS_MIGRATIONS });

// DataSource for the TypeORM CLI: `npm run migration:generate -- ai-detector <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { AIDETECT_ENTITIES, AIDETECT_SCHEMA } from './entities';
import { AIDETECT_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: AIDETECT_SCHEMA, entities: AIDETECT_ENTITIES, migrations: AIDETECT_MIGRATIONS });

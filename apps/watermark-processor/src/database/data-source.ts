// DataSource for the TypeORM CLI: `npm run migration:generate -- watermark-processor <Name>`.
import 'reflect-metadata';
import { serviceCliDataSource } from '@cp/runtime';
import { WATERMARK_ENTITIES, WATERMARK_SCHEMA } from './entities';
import { WATERMARK_MIGRATIONS } from './migrations';

export default serviceCliDataSource({ schema: WATERMARK_SCHEMA, entities: WATERMARK_ENTITIES, migrations: WATERMARK_MIGRATIONS });

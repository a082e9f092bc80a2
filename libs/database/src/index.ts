export * from './service-data-source';
export * from './database.module';
export * from './transaction.repository';
export * from './json-rows';
export * from './write-batch';
export * from './prepared-statements';
export * from './id-blocks';
export * from './database-unavailable';

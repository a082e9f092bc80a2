export * from './logging.module';
export * from './access-log';

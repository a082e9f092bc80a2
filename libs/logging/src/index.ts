export * from './logging.module';
export * from './access-log';
export * from './logged-url';
export * from './logged-error';

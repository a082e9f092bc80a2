export * from './validate-env';
export * from './core-env';
export * from './ip-list';
export * from './worker-env';

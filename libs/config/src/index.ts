export * from './validate-env';
export * from './core-env';

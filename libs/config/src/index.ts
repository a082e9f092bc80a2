export * from './validate-env';
export * from './core-env';
export * from './ip-list';
export * from './prefixed-env';
export * from './worker-env';
export * from './outbound-env';
export * from './upload-window-env';

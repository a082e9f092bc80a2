export * from './object-storage';
export * from './storage.module';
export * from './storage-event';
export * from './upload-token';
export * from './zip-package';
export * from './result-urls';

export * from './test-infra';
export * from './pdf-fixtures';
export * from './tls-fixtures';
export * from './test-storage';
export * from './zip';
export * from './png-chunks';
export * from './test-s3-server';
export * from './hostile-peer';

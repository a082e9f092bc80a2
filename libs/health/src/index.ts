export * from './health.module';
export * from './readiness-registry';
export * from './metrics-server';

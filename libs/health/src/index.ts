export * from './health.module';
export * from './readiness-registry';

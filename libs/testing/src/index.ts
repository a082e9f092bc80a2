export * from './test-infra';

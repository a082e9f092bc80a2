export * from './test-infra';
export * from './pdf-fixtures';

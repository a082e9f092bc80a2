export * from './account.entity';
export * from './api-key.entity';
export * from './api-key-secret';
export * from './accounts.repository';

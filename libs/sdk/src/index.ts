export * from './client';
export * from './errors';
export { outputFileName } from './results';
export type { FileSource } from './sources';
export { DEFAULT_RETRY, retryAfterSeconds } from './transport';
export type { RetryPolicy } from './transport';
export * from './webhooks';
export type { components, operations, paths } from './generated/openapi';

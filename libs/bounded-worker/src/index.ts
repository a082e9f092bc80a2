export { BoundedWorker, WorkerFailure, WorkerFailureCode } from './bounded-worker';
export type { BoundedWorkerOptions, CallOptions, WorkerLimits, WorkerReplyMessage } from './bounded-worker';

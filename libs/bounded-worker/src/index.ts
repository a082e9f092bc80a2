export { BoundedWorker, RESIDENT_HEADROOM_MB, residentLimitMb } from './bounded-worker';
export type { BoundedWorkerOptions, CallOptions, WorkerLimits, WorkerReplyMessage } from './bounded-worker';
export { preferForOutOfMemory } from './worker-channel';
export type { WorkerIsolation } from './worker-channel';
export { WorkerFailure, WorkerFailureCode } from './worker-failure';

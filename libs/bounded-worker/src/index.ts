export { BoundedWorker, CPU_CHECK_MS, deadlineFailure, MIN_ATTRIBUTED_CPU_MS, RESIDENT_HEADROOM_MB, residentLimitMb, WORKER_CPU_SHARE } from './bounded-worker';
export type { BoundedWorkerOptions, CallOptions, CallUsage, WorkerLimits, WorkerReplyMessage } from './bounded-worker';
export { processCpuMillis, processTreeCpuMillis } from './process-cpu';
export { preferForOutOfMemory } from './worker-channel';
export type { WorkerIsolation } from './worker-channel';
export { isWorkerMachineFailure, WorkerFailure, WorkerFailureCode } from './worker-failure';

// The worker side of @cp/bounded-worker, for worker scripts (plain ES modules) run as a thread or a child process.
//   import { workerPort } from '<relative path>/bounded-worker/src/worker-port.mjs';
//   const port = workerPort();
//   port.onMessage(async (msg) => port.post({ id: msg.id, ... }, transferList));
// In a child process, large byte arrays arrive in chunks (see worker-channel.ts) and are put back together here
// before the message is handed over; the process ends with its parent.
import { parentPort } from 'node:worker_threads';

export const CHUNK = '__boundedWorkerChunk';
export const CHUNKED = '__boundedWorkerChunked';

export function workerPort() {
  if (parentPort) {
    return {
      onMessage: (listener) => parentPort.on('message', listener),
      post: (message, transfer) => parentPort.postMessage(message, transfer ?? []),
    };
  }
  process.on('disconnect', () => process.exit(0));
  const parts = new Map();
  const queued = [];
  let listener = null;
  process.on('message', (message) => {
    if (message && message[CHUNK]) {
      let buffer = parts.get(message.key);
      if (!buffer) {
        buffer = Buffer.allocUnsafe(message.total);
        parts.set(message.key, buffer);
      }
      buffer.set(message.data, message.offset);
      return;
    }
    for (const [key, value] of Object.entries(message ?? {})) {
      if (value && typeof value === 'object' && value[CHUNKED] === key) {
        message[key] = parts.get(key) ?? Buffer.alloc(0);
        parts.delete(key);
      }
    }
    if (listener) listener(message);
    else queued.push(message);
  });
  return {
    onMessage: (fn) => {
      listener = fn;
      for (const message of queued.splice(0)) fn(message);
    },
    // a child's send is synchronous: transfer lists do not apply across processes
    post: (message) => process.send(message),
  };
}

// Test worker for BoundedWorker, as a thread or a child process: answers, loops forever, fills its heap or exits.
import { parentPort, threadId } from 'node:worker_threads';

const port = parentPort ?? { on: (event, fn) => process.on(event, fn), postMessage: (msg) => process.send(msg) };
if (!parentPort) process.on('disconnect', () => process.exit(0));
// which worker answered: a thread id, or a process id
const self = parentPort ? `thread ${threadId}` : `process ${process.pid}`;

port.on('message', (msg) => {
  if (msg.op === 'echo') {
    port.postMessage({ id: msg.id, value: msg.value, bytes: msg.bytes ? msg.bytes.byteLength : null });
  } else if (msg.op === 'pid') {
    port.postMessage({ id: msg.id, value: self });
  } else if (msg.op === 'retire') {
    port.postMessage({ id: msg.id, value: self, retire: true });
  } else if (msg.op === 'spin') {
    for (;;) {
      // never answers: only the deadline ends this call
    }
  } else if (msg.op === 'hog') {
    const kept = [];
    for (;;) kept.push({ payload: new Array(1024).fill(kept.length) });
  } else if (msg.op === 'big') {
    // one array of 400 MB: far more than the 16 MiB a worker thread may overrun its limit by
    const big = new Array(50_000_000).fill(0.5);
    port.postMessage({ id: msg.id, value: String(big.length) });
  } else if (msg.op === 'exit') {
    process.exit(3);
  }
});

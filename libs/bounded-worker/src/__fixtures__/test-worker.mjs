// Test worker for BoundedWorker, as a thread or a child process: answers, loops forever, fills its heap or exits.
import { readFileSync } from 'node:fs';
import { threadId, isMainThread } from 'node:worker_threads';
import { workerPort } from '../worker-port.mjs';

const port = workerPort();
// which worker answered: a thread id, or a process id
const self = isMainThread ? `process ${process.pid}` : `thread ${threadId}`;

port.onMessage((msg) => {
  if (msg.op === 'echo') {
    let sum = 0;
    if (msg.bytes) for (let i = 0; i < msg.bytes.length; i += 4096) sum += msg.bytes[i];
    port.post({ id: msg.id, value: msg.value, bytes: msg.bytes ? msg.bytes.byteLength : null, sum });
  } else if (msg.op === 'pid') {
    port.post({ id: msg.id, value: self });
  } else if (msg.op === 'oom-score') {
    let value = 'none';
    try {
      value = readFileSync('/proc/self/oom_score_adj', 'utf8').trim();
    } catch {
      // no /proc
    }
    port.post({ id: msg.id, value });
  } else if (msg.op === 'retire') {
    port.post({ id: msg.id, value: self, retire: true });
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
    port.post({ id: msg.id, value: String(big.length) });
  } else if (msg.op === 'buffers') {
    // array buffers outside the heap, each written so it is resident: the heap limit does not see them
    const kept = [];
    for (let i = 0; i < msg.mb; i += 16) {
      const chunk = new Uint8Array(16 * 1024 * 1024);
      chunk.fill(1);
      kept.push(chunk);
    }
    port.post({ id: msg.id, value: String(kept.length) });
  } else if (msg.op === 'exit') {
    process.exit(3);
  }
});

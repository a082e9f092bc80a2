// Test worker for BoundedWorker: answers, loops forever, fills its heap or exits, as asked.
import { parentPort } from 'node:worker_threads';

parentPort.on('message', (msg) => {
  if (msg.op === 'echo') {
    parentPort.postMessage({ id: msg.id, value: msg.value, bytes: msg.bytes ? msg.bytes.byteLength : null });
  } else if (msg.op === 'spin') {
    for (;;) {
      // never answers: only the deadline ends this call
    }
  } else if (msg.op === 'hog') {
    const kept = [];
    for (;;) kept.push({ payload: new Array(1024).fill(kept.length) });
  } else if (msg.op === 'exit') {
    process.exit(3);
  }
});

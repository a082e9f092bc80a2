// Closes an idle worker as the process's last act and says so: `close()` must settle although the idle worker
// no longer keeps the process alive (bounded-worker.spec.ts runs this in a process of its own).
import { join } from 'node:path';
import { BoundedWorker } from '../bounded-worker';
import { WorkerIsolation } from '../worker-channel';

async function main(): Promise<void> {
  const isolation = process.argv[2] as WorkerIsolation;
  const worker = new BoundedWorker<{ op: 'echo'; value: string }, { id: number; value: string }>({
    name: 'close-idle',
    file: join(__dirname, 'test-worker.mjs'),
    isolation,
    limits: { deadlineMs: 10_000, maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
  });
  const reply = await worker.call({ op: 'echo', value: 'before close' });
  await worker.close();
  process.stdout.write(`${reply.value}; closed`);
}

void main();

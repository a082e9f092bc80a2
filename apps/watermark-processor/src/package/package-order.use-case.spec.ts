// The package use case with in-memory storage: the ZIP holds every output under its download name, and
// the completion is reported only once the ZIP is stored.
import { EventSubjects, PackageJob } from '@cp/contracts';
import { readZip } from '@cp/testing';
import { fakeContext, MemoryStorage, RecordingOutbox } from '../testing/fakes';
import { PackageOrderUseCase } from './package-order.use-case';

const job: PackageJob = {
  orderId: '9',
  entries: [
    { bucket: 'out', key: '3/9/outputs/5-1.png', fileName: 'photo-watermarked-5-1.png' },
    { bucket: 'out', key: '3/9/outputs/5-2.png', fileName: 'photo-watermarked-5-2.png' },
  ],
  output: { bucket: 'out', key: '3/9/package.zip', fileName: '9-watermarked.zip' },
};

describe('PackageOrderUseCase', () => {
  it('packs every output under its download name, then reports the package', async () => {
    const storage = new MemoryStorage();
    const outbox = new RecordingOutbox();
    storage.seed('out', job.entries[0].key, Buffer.from('first output'));
    storage.seed('out', job.entries[1].key, Buffer.from('second output'));
    await new PackageOrderUseCase(storage.asStorage(), outbox.asOutbox()).execute(job, fakeContext());
    const zip = storage.read('out', job.output.key);
    expect(zip).toBeDefined();
    const entries = await readZip(zip ?? Buffer.alloc(0));
    expect(Object.fromEntries([...entries].map(([name, data]) => [name, data.toString()]))).toEqual({
      'photo-watermarked-5-1.png': 'first output',
      'photo-watermarked-5-2.png': 'second output',
    });
    expect(outbox.messages).toEqual([{ subject: EventSubjects.packageCompleted, payload: { orderId: '9', objectKey: job.output.key } }]);
  });

  it('fails the job (for a retry) when an output is missing, and reports nothing', async () => {
    const storage = new MemoryStorage();
    const outbox = new RecordingOutbox();
    storage.seed('out', job.entries[0].key, Buffer.from('first output'));
    await expect(new PackageOrderUseCase(storage.asStorage(), outbox.asOutbox()).execute(job, fakeContext())).rejects.toThrow('NoSuchKey');
    expect(outbox.messages).toEqual([]);
  });
});

// The package use case with in-memory storage: the ZIP holds every output under its download name, and
// the completion is reported only once the ZIP is stored.
import { EventSubjects, PackageJob } from '@cp/contracts';
import { fromBuffer, Entry, ZipFile } from 'yauzl';
import { fakeContext, MemoryStorage, RecordingOutbox } from '../testing/fakes';
import { PackageOrderUseCase } from './package-order.use-case';

function entriesOf(zip: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    fromBuffer(zip, { lazyEntries: true }, (error: Error | null, file: ZipFile) => {
      if (error) {
        reject(error);
        return;
      }
      const entries = new Map<string, string>();
      file.on('entry', (entry: Entry) =>
        file.openReadStream(entry, (streamError, stream) => {
          if (streamError) {
            reject(streamError);
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks).toString());
            file.readEntry();
          });
        }),
      );
      file.on('end', () => resolve(entries));
      file.readEntry();
    });
  });
}

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
    expect(Object.fromEntries(await entriesOf(zip ?? Buffer.alloc(0)))).toEqual({
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

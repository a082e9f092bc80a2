// put() of a stream against a real S3 server: when the source stream fails (a fetch cut at its byte cap or
// deadline, a connection reset), the upload must reject with that error instead of waiting for ever.
import { startTestS3Server, TestS3Server, testStorageConfig } from '@cp/testing';
import { Readable } from 'node:stream';
import { ObjectStorage } from './object-storage';

/** Sends `chunks` chunks of `chunkSize` bytes, then fails with `error` (or ends when there is none). */
function source(chunks: number, chunkSize: number, error?: Error): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent < chunks) {
        sent += 1;
        this.push(Buffer.alloc(chunkSize, sent));
      } else if (error) {
        this.destroy(error);
      } else {
        this.push(null);
      }
    },
  });
}

/** Settles with the outcome of `promise`, or with 'unsettled' when it has not settled within `ms`. */
async function outcomeWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const unsettled = new Promise((resolve) => {
    timer = setTimeout(() => resolve('unsettled'), ms);
  });
  try {
    return await Promise.race([promise.then(() => 'stored', (error: unknown) => error), unsettled]);
  } finally {
    clearTimeout(timer);
  }
}

describe('ObjectStorage.put of a stream (real S3 server)', () => {
  let server: TestS3Server;
  let storage: ObjectStorage;

  beforeAll(async () => {
    server = await startTestS3Server();
    storage = new ObjectStorage(testStorageConfig(server.endpoint));
    await storage.ensureBuckets();
  });

  afterAll(() => server.close());

  it('stores a stream that ends', async () => {
    await storage.put(storage.buckets.inputs, 'ok/a.bin', source(4, 1024));
    expect((await storage.stat(storage.buckets.inputs, 'ok/a.bin'))?.size).toBe(4096);
  });

  it('rejects with the source error when the source fails before its end (unknown length)', async () => {
    const failure = new Error('source reset');
    const outcome = await outcomeWithin(storage.put(storage.buckets.inputs, 'failed/a.bin', source(3, 64 * 1024, failure)), 10_000);
    expect(outcome).toBe(failure);
    expect(await storage.stat(storage.buckets.inputs, 'failed/a.bin')).toBeNull();
  });

  it('rejects with the source error when the source fails before its end (declared length)', async () => {
    const failure = new Error('cut at the byte cap');
    const outcome = await outcomeWithin(storage.put(storage.buckets.inputs, 'failed/b.bin', source(2, 1024, failure), 'application/octet-stream', 8192), 10_000);
    expect(outcome).toBe(failure);
  });

  it('rejects when the source fails at once, before any byte', async () => {
    const failure = new Error('refused');
    const outcome = await outcomeWithin(storage.put(storage.buckets.inputs, 'failed/c.bin', source(0, 1, failure)), 10_000);
    expect(outcome).toBe(failure);
  });
});

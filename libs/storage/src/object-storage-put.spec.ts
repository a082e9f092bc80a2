// put() of a stream against a real S3 server: when the source stream fails (a fetch cut at its byte cap or
// deadline, a connection reset), the upload must reject with that error instead of waiting for ever.
import { startTestS3Server, TestS3Server, testStorageConfig } from '@cp/testing';
import { request } from 'node:http';
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

describe('ObjectStorage.put of a stream, and getBuffer past its limit (real S3 server)', () => {
  let server: TestS3Server;
  let storage: ObjectStorage;

  beforeAll(async () => {
    server = await startTestS3Server();
    storage = new ObjectStorage({ ...testStorageConfig(server.endpoint), publicEndpoint: server.endpoint });
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

  // the local S3 server behaves like MinIO here (libs/testing's behaveLikeMinio): a PUT replaces an object whole or
  // not at all. s3rver on its own writes the body into the object's file as it comes: a PUT its client abandoned
  // left the object cut to what had arrived.
  it('a PUT its client abandons half way leaves the object that was there whole', async () => {
    const first = Buffer.alloc(8192, 7);
    await storage.put(storage.buckets.inputs, 'kept/a.bin', first);
    const url = await storage.presignPut(storage.buckets.inputs, 'kept/a.bin', 60);
    // 2 KiB of the 8 KiB announced, then the client goes away
    const outcome = await new Promise<string>((resolve) => {
      const put = request(url, { method: 'PUT', headers: { 'content-length': '8192' } });
      put.on('response', (response) => resolve(`answered ${response.statusCode}`));
      put.on('error', () => resolve('abandoned'));
      put.write(Buffer.alloc(2048, 9));
      setTimeout(() => put.destroy(), 300);
    });
    expect(outcome).toBe('abandoned');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // s3rver on its own: 2048 bytes of 9s
    expect((await storage.getBuffer(storage.buckets.inputs, 'kept/a.bin', 1 << 20)).equals(first)).toBe(true);
  });

  // getBuffer past its limit, on the same server.
  it("names the object by its ids, not the client's file name: the message is logged and kept with the attempt", async () => {
    await storage.put(storage.buckets.inputs, '9/7/inputs/5/Jane Doe passport.png', Buffer.alloc(64, 1));
    await expect(storage.getBuffer(storage.buckets.inputs, '9/7/inputs/5/Jane Doe passport.png', 16)).rejects.toThrow(
      `object ${storage.buckets.inputs}/9/7/inputs/5/[name] is larger than 16 bytes`,
    );
  });
});

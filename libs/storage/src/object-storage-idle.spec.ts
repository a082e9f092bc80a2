// A storage server that stops answering: every call ends with ETIMEDOUT (an outage the consumers hold and retry)
// once its connection has been silent for the idle limit, instead of waiting as long as the socket lives.
import { testStorageConfig } from '@cp/testing';
import { createServer, Server, Socket } from 'node:net';
import { ObjectStorage, StorageIdleTimeoutError } from './object-storage';

const IDLE_MS = 1000;

/** A TCP server that reads requests and answers each with `reply` (nothing at all when it is empty), then stays silent. */
async function silentServer(reply: string): Promise<{ server: Server; endpoint: string; requests: () => number; sockets: Socket[] }> {
  let requests = 0;
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', () => {
      requests += 1;
      if (reply) socket.write(reply);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, endpoint: `http://127.0.0.1:${port}`, requests: () => requests, sockets };
}

function storageAt(endpoint: string): ObjectStorage {
  return new ObjectStorage({ ...testStorageConfig(endpoint), publicEndpoint: endpoint, idleTimeoutMs: IDLE_MS });
}

describe('ObjectStorage against a storage server that stops answering', () => {
  const servers: Array<{ server: Server; sockets: Socket[] }> = [];

  afterAll(async () => {
    for (const { server, sockets } of servers) {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a request never answered fails with ETIMEDOUT after the idle limit', async () => {
    const silent = await silentServer('');
    servers.push(silent);
    const storage = storageAt(silent.endpoint);
    const started = Date.now();
    const failure = await storage.stat(storage.buckets.inputs, 'k/file.jpg').then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StorageIdleTimeoutError);
    expect(failure).toMatchObject({ code: 'ETIMEDOUT' });
    expect(silent.requests()).toBeGreaterThan(0);
    // not before the limit: the limit, not some other error, ended it
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS - 50);
  });

  it('a body that stops half way fails the read with ETIMEDOUT, not a hang', async () => {
    const half = await silentServer('HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: 100\r\nETag: "x"\r\n\r\n0123456789');
    servers.push(half);
    const storage = storageAt(half.endpoint);
    const failure = await storage.getBuffer(storage.buckets.inputs, 'k/file.jpg', 1000).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'ETIMEDOUT' });
  });
});

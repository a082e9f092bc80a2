import { ManualClock } from '@cp/clock';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../gateway.config';
import { relayTarget, StorageRelay, StorageRelayError } from './storage-relay';

const BUCKET = 'cp-outputs';

interface Listener {
  server: Server;
  port: number;
  seen: string[];
}

async function listen(answer: (request: IncomingMessage) => { status: number; body: string }): Promise<Listener> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.headers.host ?? ''} ${request.url ?? ''}`);
    const { status, body } = answer(request);
    response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const NOW = new Date('2026-11-29T03:15:00Z');
/** The shape of a live presigned read (storage checks its signature; the relay checks that it is one). */
const SIGNED = `?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=reader%2F20261129%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261129T031000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=${'ab'.repeat(32)}`;

function relayTo(storagePort: number): StorageRelay {
  const config = { results: { storageEndpoint: `http://127.0.0.1:${storagePort}`, signedHost: 'storage.example:9000', bucket: BUCKET } } as GatewayConfig;
  return new StorageRelay(config, new ManualClock(NOW));
}

async function read(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(Buffer.from(chunk as Buffer));
  }
  return Buffer.concat(chunks).toString('utf8');
}

describe('relayTarget', () => {
  const endpoint = 'http://minio.internal:9000';

  it('keeps the path and query of a presigned read on the storage origin', () => {
    const target = relayTarget('/cp-outputs/1/44/outputs/a%20b.png?X-Amz-Signature=abc&X-Amz-Expires=900', endpoint, BUCKET);
    expect(target?.toString()).toBe('http://minio.internal:9000/cp-outputs/1/44/outputs/a%20b.png?X-Amz-Signature=abc&X-Amz-Expires=900');
  });

  it.each([
    ['a backslash authority (the reported open proxy)', '/\\127.0.0.1:8099/cp-outputs/x?a=b'],
    ['a backslash inside the bucket path', '/cp-outputs\\..\\x'],
    ['a protocol-relative authority', '//127.0.0.1:8099/cp-outputs/x'],
    ['an absolute URL as the path', '/http://127.0.0.1:8099/cp-outputs/x'],
    ['an encoded slash', '/cp-outputs%2f..%2fcp-inputs/x'],
    ['an encoded backslash', '/cp-outputs/%5c%5c127.0.0.1:8099/x'],
    ['an encoded dot segment', '/cp-outputs/%2e%2e/cp-inputs/x'],
    ['a plain dot segment', '/cp-outputs/../cp-inputs/x'],
    ['an empty segment', '/cp-outputs//x'],
    ['another bucket', '/cp-inputs/x'],
    ['the bucket alone', '/cp-outputs/'],
    ['a bad escape', '/cp-outputs/%zz'],
    ['a space', '/cp-outputs/a b'],
    ['a backslash in the query', '/cp-outputs/x?a=\\\\127.0.0.1'],
  ])('refuses %s', (_name, path) => {
    expect(relayTarget(path, endpoint, BUCKET)).toBeNull();
  });
});

describe('StorageRelay against real sockets', () => {
  let storage: Listener;
  let attacker: Listener;

  beforeAll(async () => {
    storage = await listen((request) => (request.url?.startsWith('/cp-outputs/missing') ? { status: 404, body: 'NoSuchKey' } : request.url?.startsWith('/cp-outputs/broken') ? { status: 500, body: 'boom' } : { status: 200, body: 'object bytes' }));
    attacker = await listen(() => ({ status: 200, body: 'secret from the operator network' }));
  });

  afterAll(async () => {
    storage.server.close();
    attacker.server.close();
    await Promise.all([once(storage.server, 'close'), once(attacker.server, 'close')]);
  });

  it('relays a presigned read to storage with the signed Host', async () => {
    const relayed = await relayTo(storage.port).open(`/cp-outputs/1/2/file.png${SIGNED}`);
    expect(await read(relayed.body)).toBe('object bytes');
    expect(storage.seen).toContain(`storage.example:9000 /cp-outputs/1/2/file.png${SIGNED}`);
  });

  it.each([
    ['no query at all', '/cp-outputs/1/2/file.png'],
    ['a subresource', '/cp-outputs/1/2/file.png?acl'],
    ['a content type override', `/cp-outputs/1/2/file.png${SIGNED}&response-content-type=text%2Fhtml`],
    ['an expired link', `/cp-outputs/1/2/file.png${SIGNED.replace('X-Amz-Expires=900', 'X-Amz-Expires=60')}`],
  ])('never asks storage without a live presigned query: %s', async (_name, pathAndQuery) => {
    const before = storage.seen.length;
    await expect(relayTo(storage.port).open(pathAndQuery)).rejects.toMatchObject({ reason: 'not-relayed' });
    expect(storage.seen.length).toBe(before);
  });

  it.each([
    `/\\127.0.0.1:PORT/cp-outputs/x?a=b`,
    `//127.0.0.1:PORT/cp-outputs/x?a=b`,
    `/http://127.0.0.1:PORT/cp-outputs/x`,
    `/cp-outputs/..%5c..%5c127.0.0.1:PORT/x`,
    `/cp-outputs%2f%2f127.0.0.1:PORT/x`,
  ])('never reaches a host named in the path: %s', async (template) => {
    const before = storage.seen.length;
    await expect(relayTo(storage.port).open(template.replace('PORT', String(attacker.port)))).rejects.toMatchObject({ reason: 'not-relayed' });
    expect(attacker.seen).toEqual([]);
    expect(storage.seen.length).toBe(before);
  });

  it("maps storage's refusal to not-found and its failure to storage-unavailable", async () => {
    await expect(relayTo(storage.port).open(`/cp-outputs/missing.png${SIGNED}`)).rejects.toMatchObject({ reason: 'not-found' });
    await expect(relayTo(storage.port).open(`/cp-outputs/broken.png${SIGNED}`)).rejects.toMatchObject({ reason: 'storage-unavailable' });
  });

  it('answers storage-unavailable when storage does not listen', async () => {
    const closed = await listen(() => ({ status: 200, body: '' }));
    closed.server.close();
    await once(closed.server, 'close');
    const failure = await relayTo(closed.port).open(`/cp-outputs/x.png${SIGNED}`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageRelayError);
    expect((failure as StorageRelayError).reason).toBe('storage-unavailable');
  });
});

// The results relay's caps on downloads at once, over a real HTTP server with a relay whose bodies the test holds open.
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { once } from 'node:events';
import { IncomingMessage, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { GATEWAY_CONFIG } from '../gateway.config';
import { HttpExceptionFilter } from '../http/http-exception.filter';
import { objectOf, ResultsController } from './results.controller';
import { RelaySlots } from './relay-slots';
import { RelayedObject, StorageRelay, StorageRelayError } from './storage-relay';

/**
 * Every download it opens stays open until the test ends it; with `storageSlow`, storage's answer waits too, until
 * the test gives it or the controller's signal ends the request (its client gone).
 */
class HeldRelay {
  readonly bodies: PassThrough[] = [];
  storageSlow = false;
  readonly answers: Array<() => void> = [];
  ended = 0;

  async open(_pathAndQuery: string, signal?: AbortSignal): Promise<RelayedObject> {
    if (this.storageSlow) {
      await new Promise<void>((resolve, reject) => {
        this.answers.push(resolve);
        signal?.addEventListener('abort', () => {
          this.ended += 1;
          reject(new StorageRelayError('storage-unavailable', 'the caller gave up'));
        });
      });
    }
    const body = new PassThrough();
    body.write('first bytes');
    this.bodies.push(body);
    return { headers: { 'content-type': 'image/png' }, body };
  }
}

describe('ResultsController: downloads at once (real HTTP server)', () => {
  const relay = new HeldRelay();
  let slots: RelaySlots;
  let app: INestApplication;
  let port: number;

  /** Starts a download and resolves with its answer's head (a held download's body keeps coming). */
  function get(path: string): Promise<IncomingMessage> {
    const outgoing = request({ host: '127.0.0.1', port, path: `/api/v2/results${path}` });
    outgoing.end();
    return once(outgoing, 'response').then(([response]) => response as IncomingMessage);
  }

  async function jsonOf(response: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  }

  beforeAll(async () => {
    const config = { results: { storageEndpoint: 'http://127.0.0.1:9', signedHost: 'x', bucket: 'cp-outputs', maxConcurrent: 3, maxPerObject: 2 } };
    const moduleRef = await Test.createTestingModule({
      controllers: [ResultsController],
      providers: [RelaySlots, { provide: StorageRelay, useValue: relay }, { provide: GATEWAY_CONFIG, useValue: config }],
    }).compile();
    app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
    app.useGlobalFilters(new HttpExceptionFilter());
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer() as { address(): AddressInfo }).address().port;
    slots = app.get(RelaySlots);
  });

  afterAll(() => app.close());

  it('caps downloads of one file (429 RATE_LIMIT_EXCEEDED) and of all files (503 WATERMARK_V2_UNAVAILABLE), with Retry-After; slots come back when downloads end', async () => {
    const first = await get('/cp-outputs/1/2/outputs/a.png?X-Amz-Signature=one');
    const second = await get('/cp-outputs/1/2/outputs/%61.png?X-Amz-Signature=two');
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);

    const sameFile = await get('/cp-outputs/1/2/outputs/a.png?X-Amz-Signature=three');
    expect([sameFile.statusCode, sameFile.headers['retry-after'], await jsonOf(sameFile)]).toEqual([429, '5', { code: 'RATE_LIMIT_EXCEEDED' }]);

    const other = await get('/cp-outputs/1/2/outputs/b.png?X-Amz-Signature=four');
    expect(other.statusCode).toBe(200);
    const full = await get('/cp-outputs/1/2/outputs/c.png?X-Amz-Signature=five');
    expect([full.statusCode, full.headers['retry-after'], await jsonOf(full)]).toEqual([503, '5', { code: 'WATERMARK_V2_UNAVAILABLE' }]);
    expect(slots.inUse).toBe(3);

    // One download finishes, another's client goes away: both slots come back.
    relay.bodies[0].end();
    first.resume();
    await once(first, 'end');
    other.destroy();
    // The server sees the client go in its own time: wait for it, without a clock.
    while (slots.inUse !== 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(slots.inUse).toBe(1);
    const again = await get('/cp-outputs/1/2/outputs/a.png?X-Amz-Signature=six');
    expect(again.statusCode).toBe(200);
    relay.bodies.forEach((body) => body.end());
    second.resume();
    again.resume();
    await Promise.all([once(second, 'end'), once(again, 'end')]);
  });

  it('a client that leaves while storage is slow to answer ends the relay\'s request; its slot comes back once that has ended', async () => {
    relay.storageSlow = true;
    const outgoing = request({ host: '127.0.0.1', port, path: '/api/v2/results/cp-outputs/1/2/outputs/slow.png?X-Amz-Signature=s' });
    outgoing.on('error', () => undefined);
    outgoing.end();
    while (relay.answers.length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect([slots.inUse, relay.ended]).toEqual([1, 0]);
    outgoing.destroy();
    // storage never answers: only the client's going ends the request, and then the slot comes back
    while (slots.inUse !== 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(relay.ended).toBe(1);
    relay.storageSlow = false;
  });

  it('counts one file however its path is encoded and whatever its query', () => {
    expect(objectOf('/cp-outputs/1/2/outputs/%61.png?X-Amz-Signature=x')).toBe(objectOf('/cp-outputs/1/2/outputs/a.png'));
    expect(objectOf('/cp-outputs/1/2/%zz')).toBe('/cp-outputs/1/2/%zz');
  });
});

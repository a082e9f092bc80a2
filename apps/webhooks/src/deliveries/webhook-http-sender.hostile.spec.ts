// The webhook sender against a hostile receiver on loopback: every delivery ends within the delivery deadline
// with its outcome (only the status counts, so a receiver streaming after its 200 is a success that does not
// hold the slot), redirects are failures that never reach their target, and the next delivery succeeds.
import { HostileBehaviour, HostilePeer } from '@cp/testing';
import { SendOutcome, WebhookHttpSender } from './webhook-http-sender';

describe('WebhookHttpSender against a hostile receiver', () => {
  let peer: HostilePeer;
  const settings = { secretEncryptionKey: Buffer.alloc(32), allowHttp: true, dispatchIntervalMs: 250, maxConcurrency: 4, maxConcurrencyPerEndpoint: 2, maxConcurrencyPerAccount: 8, maxWebhooksPerMode: 20, publicBaseUrl: 'https://api.example.com', deliveryRetention: { keepMs: 30 * 24 * 3600_000, intervalMs: 600_000, batchSize: 1000 } };
  const sender = new WebhookHttpSender({ ...settings, allowedTargetIps: ['127.0.0.1'] });
  const body = JSON.stringify({ event: 'order.completed', padding: 'x'.repeat(4096) });

  beforeAll(async () => {
    peer = await HostilePeer.start({ intervalMs: 200, readChunkBytes: 16 });
  });

  afterAll(() => peer.close());

  it.each<[HostileBehaviour, Partial<SendOutcome>]>([
    ['trickle', { success: true, statusCode: 200, kind: 'success' }],
    ['slow-after-200', { success: true, statusCode: 200, kind: 'success' }],
    ['endless', { success: true, statusCode: 200, kind: 'success' }],
    ['reset', { success: true, statusCode: 200, kind: 'success' }],
    ['slow-reader', { success: false, statusCode: null, kind: 'timeout' }],
    ['redirect-private', { success: false, statusCode: 302, kind: 'http_error' }],
    ['redirect-metadata', { success: false, statusCode: 302, kind: 'http_error' }],
  ])('%s: ends within the deadline as %o, and the next delivery succeeds', async (behaviour, expected) => {
    const okBefore = peer.hits.get('ok') ?? 0;
    const outcome = await sender.send({ url: peer.url(behaviour, 'hook'), body, headers: {} }, 1500);
    expect(outcome).toMatchObject(expected);
    // A redirect to the peer's own `ok` path was not followed.
    expect(peer.hits.get('ok') ?? 0).toBe(okBefore);
    expect(await sender.send({ url: peer.url('ok', 'hook'), body, headers: {} }, 1500)).toMatchObject({ success: true, statusCode: 200 });
  });

  it('refuses the IPv4-mapped IPv6 form of a private address that is not allow-listed, and plain HTTP when it is off', async () => {
    const port = new URL(peer.origin).port;
    expect(await sender.send({ url: `http://[::ffff:10.0.0.1]:${port}/ok/hook`, body, headers: {} }, 1500)).toMatchObject({ success: false, kind: 'blocked' });
    expect(await sender.send({ url: `http://[::ffff:169.254.169.254]/latest`, body, headers: {} }, 1500)).toMatchObject({ success: false, kind: 'blocked' });
    const httpsOnly = new WebhookHttpSender({ ...settings, allowHttp: false, allowedTargetIps: ['127.0.0.1'] });
    expect(await httpsOnly.send({ url: peer.url('ok', 'hook'), body, headers: {} }, 1500)).toMatchObject({ success: false, kind: 'network_error', statusCode: null });
  });

  it("a refused connection is said in a fixed sentence, never Node's message naming the address", async () => {
    // a port nothing listens on: the peer's, once it is closed
    const closed = await HostilePeer.start({ intervalMs: 200, readChunkBytes: 16 });
    const url = closed.url('ok', 'hook');
    await closed.close();
    const outcome = await sender.send({ url, body, headers: {} }, 1500);
    expect(outcome).toMatchObject({ success: false, statusCode: null, kind: 'network_error', error: 'the connection was refused' });
  });
});

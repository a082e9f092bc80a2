// The two reported ways into the operator's network, tried against the running platform: the public results relay
// steered to another host by its path (backslash, encoded and absolute-URL spellings, sent as they are), and a file
// naming a remote C2PA manifest on this machine. A listener on loopback stands for the operator's network: it must
// never see a request.
import { AiDetectionOrderCreatedView, AntiAiOrderCreatedView, V2OrderDetailView } from '@cp/contracts';
import { HostilePeer } from '@cp/testing';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { gatewayUrl } from '@cp/stack';
import { clientTlsDir } from './setup/e2e-layout';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, waitForOrder } from './support/orders';

interface Listener {
  server: Server;
  port: number;
  seen: string[];
}

async function listen(): Promise<Listener> {
  const seen: string[] = [];
  const server = createServer((incoming, response) => {
    seen.push(`${incoming.method ?? ''} ${incoming.url ?? ''}`);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('internal secret');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, seen };
}

/** GET with the path exactly as written (like `curl --path-as-is`): fetch would turn `\` into `/` and drop dot segments. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const base = new URL(gatewayUrl(layout));
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: base.hostname, port: base.port, method: 'GET', path }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('outbound requests: nothing named by a caller reaches the operator network', () => {
  let listener: Listener;

  beforeAll(async () => {
    listener = await listen();
  });

  afterAll(async () => {
    listener.server.close();
    await once(listener.server, 'close');
  });

  describe('the public results relay', () => {
    it.each([
      ['a backslash authority (the reported request)', '/api/v2/results/\\127.0.0.1:PORT/cp-outputs/x?a=b'],
      ['two backslashes', '/api/v2/results/\\\\127.0.0.1:PORT/cp-outputs/x'],
      ['an encoded backslash', '/api/v2/results/%5c127.0.0.1:PORT/cp-outputs/x'],
      ['a protocol-relative path', '/api/v2/results//127.0.0.1:PORT/cp-outputs/x'],
      ['an absolute URL as the path', '/api/v2/results/http://127.0.0.1:PORT/cp-outputs/x'],
      ['encoded slashes after the bucket', '/api/v2/results/cp-outputs%2f..%2f..%2f127.0.0.1:PORT/x'],
      ['a backslash after the bucket', '/api/v2/results/cp-outputs/..\\..\\\\127.0.0.1:PORT/x'],
    ])('%s: refused, and the listener sees nothing', async (_name, template) => {
      const answer = await rawGet(template.replace('PORT', String(listener.port)));
      // 404 from the relay; a path that is no results route at all is an unknown route, behind the key check (401).
      expect([[404, 'RESOURCE_NOT_FOUND'], [404, 'ROUTE_NOT_FOUND'], [401, 'AUTH_NOT_AUTHENTICATED']]).toContainEqual([answer.status, (JSON.parse(answer.body) as { code: string }).code]);
      expect(answer.body).not.toContain('internal secret');
      expect(listener.seen).toEqual([]);
    });
  });

  describe('AI detection of a file that names a remote C2PA manifest', () => {
    let gateway: DataSource;
    let orders: DataSource;
    let account: TestAccount;

    beforeAll(async () => {
      gateway = await openSchema('gateway');
      orders = await openSchema('orders');
      account = await createAccount(gateway, 'enterprise', 5);
      await eventually(
        async () => (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [account.accountId]))[0]?.balance ?? -1,
        (balance) => balance === 5,
      );
    });

    afterAll(async () => {
      await Promise.all([gateway.destroy(), orders.destroy()]);
    });

    it('the detector never connects to the named address, and the evidence does not repeat it', async () => {
      const remote = `http://127.0.0.1:${listener.port}/remote-manifest.c2pa`;
      const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dcterms="http://purl.org/dc/terms/" dcterms:provenance="${remote}"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
      const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#6a8caf' } }).withXmp(xmp).jpeg({ quality: 90 }).toBuffer();
      const created = await api<{ data: AiDetectionOrderCreatedView }>('/api/v2/orders/ai-detection', { key: account.liveKey, method: 'POST', body: { idempotencyKey: randomUUID(), files: [{ fileName: 'provenance.jpg' }] } });
      expect(created.status).toBe(200);
      const put = await fetch(created.body.data.files[0].uploadUrl ?? '', { method: 'PUT', body: new Uint8Array(jpeg) });
      expect(put.status).toBe(200);
      await eventually(
        async () => (await api<{ data: { files: Array<{ uploadUrl: string | null }> } }>(`/api/v3/orders/${created.body.data.orderId}`, { key: account.liveKey })).body.data.files[0].uploadUrl,
        (uploadUrl) => uploadUrl === null,
      );
      const confirmed = await api('/api/v2/orders/ai-detection/confirm', { key: account.liveKey, method: 'POST', body: { idempotencyKey: randomUUID(), orderId: created.body.data.orderId } });
      expect(confirmed.status).toBe(200);
      const done = await waitForOrder(account.liveKey, created.body.data.orderId, ['complete', 'failed'], 120_000);
      expect(done.status).toBe('complete');
      expect(listener.seen).toEqual([]);
      const evidence = done.detection?.files[0].evidence ?? [];
      expect(evidence.map((item) => item.finding)).toContain('c2pa.remoteManifest');
      expect(JSON.stringify(done)).not.toContain(`127.0.0.1:${listener.port}`);
    });
  });
  describe('a hostile zero-copy target (anti-AI results PUT to a client URL)', () => {
    let peer: HostilePeer;
    let gateway: DataSource;
    let account: TestAccount;
    const photo = corpusFile('photos/coffee.png');

    beforeAll(async () => {
      // The certificate the processor trusts for zero-copy targets in the e2e stack (ANTI_AI_TARGET_EXTRA_CA_FILE).
      const dir = clientTlsDir();
      const certificate = { certFile: path.join(dir, 'cert.pem'), cert: readFileSync(path.join(dir, 'cert.pem')), key: readFileSync(path.join(dir, 'key.pem')) };
      peer = await HostilePeer.start({ tls: certificate, intervalMs: 500, readChunkBytes: 256 });
      gateway = await openSchema('gateway');
      const orders = await openSchema('orders');
      account = await createAccount(gateway, 'enterprise', 10);
      await eventually(
        async () => (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [account.accountId]))[0]?.balance ?? -1,
        (balance) => balance === 10,
      );
      await orders.destroy();
    });

    afterAll(async () => {
      await peer.close();
      await gateway.destroy();
    });

    async function zeroCopyOrder(fileName: string, url: string): Promise<{ orderId: string; startedAt: number }> {
      const target = { fileKey: fileName, url, presignedUrlExpiresAt: new Date(Date.now() + 600_000).toISOString() };
      const created = await api<{ data: AntiAiOrderCreatedView }>('/api/v2/orders/anti-ai', {
        key: account.liveKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), files: [{ fileName }], options: { strength: 'medium' }, mode: { zeroCopy: true, outputTargets: [target] } },
      });
      expect(created.status).toBe(200);
      const startedAt = Date.now();
      const put = await fetch(created.body.data.files[0].uploadUrl ?? '', { method: 'PUT', body: new Uint8Array(photo) });
      expect(put.status).toBe(200);
      return { orderId: created.body.data.orderId, startedAt };
    }

    it('a target that reads the upload slowly fails its order within the deadline, and the next order behind it completes', async () => {
      const slow = await zeroCopyOrder('slow.png', peer.url('slow-reader', 'slow.png'));
      const next = await zeroCopyOrder('next.png', peer.url('ok', 'next.png'));
      const failed = await waitForOrder(account.liveKey, slow.orderId, ['complete', 'failed'], 90_000);
      expect(failed.status).toBe('failed');
      const detail = (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${slow.orderId}`, { key: account.liveKey })).body.data;
      expect(detail.errors?.errorCode).toBe('ANTI_AI_OUTPUT_TARGET_UNREACHABLE');
      // ANTI_AI_TARGET_DEADLINE_MS is 8 s in the e2e stack: the order ended well before a slow reader would have.
      expect(peer.hits.get('slow-reader') ?? 0).toBeGreaterThan(0);
      const done = await waitForOrder(account.liveKey, next.orderId, ['complete', 'failed'], 90_000);
      expect(done.status).toBe('complete');
      expect(peer.hits.get('ok') ?? 0).toBeGreaterThan(0);
    });

    it('a target that redirects to a private address is never followed: ANTI_AI_OUTPUT_TARGET_REFUSED', async () => {
      const before = peer.hits.get('ok') ?? 0;
      const order = await zeroCopyOrder('redirected.png', peer.url('redirect-private', 'redirected.png'));
      const failed = await waitForOrder(account.liveKey, order.orderId, ['complete', 'failed'], 90_000);
      expect(failed.status).toBe('failed');
      const detail = (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${order.orderId}`, { key: account.liveKey })).body.data;
      expect(detail.errors?.errorCode).toBe('ANTI_AI_OUTPUT_TARGET_REFUSED');
      expect(peer.hits.get('ok') ?? 0).toBe(before);
    });
  });
});

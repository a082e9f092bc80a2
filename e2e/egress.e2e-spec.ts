// The two reported ways into the operator's network, tried against the running platform: the public results relay
// steered to another host by its path (backslash, encoded and absolute-URL spellings, sent as they are), and a file
// naming a remote C2PA manifest on this machine. A listener on loopback stands for the operator's network: it must
// never see a request.
import { AiDetectionOrderCreatedView } from '@cp/contracts';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { gatewayUrl } from '@cp/stack';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { waitForOrder } from './support/orders';

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
});

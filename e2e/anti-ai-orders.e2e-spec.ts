// Anti-AI orders over HTTP against all services (issue 15): the standard endpoint (upload and URL files),
// the deprecated with-urls endpoint, zero-copy validation, test keys, reads and downloads.
import { readContentCredentials } from '@cp/anti-ai';
import { AntiAiOrderCreatedView, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { Client } from 'minio';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { clientTlsDir } from './setup/e2e-layout';
import { api, createAccount, eventually, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, download, getOrder, uploadFiles, waitForOrder } from './support/orders';
import { WebhookReceiver } from './support/webhook-receiver';

interface Created<TData> {
  status: number;
  headers: Headers;
  body: { data: TData; code?: string };
}

const createAntiAi = (key: string, body: unknown): Promise<Created<AntiAiOrderCreatedView>> => api('/api/v2/orders/anti-ai', { key, method: 'POST', body });
const createWithUrls = (key: string, body: unknown): Promise<Created<{ orderName: string; orderId: string; status: string }>> =>
  api('/api/v2/orders/anti-ai/with-urls', { key, method: 'POST', body });

async function put(url: string | null | undefined, bytes: Buffer): Promise<number> {
  if (!url) {
    throw new Error('no upload URL');
  }
  const response = await fetch(url, { method: 'PUT', body: new Uint8Array(bytes) });
  await response.arrayBuffer();
  return response.status;
}

describe('anti-AI orders', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;
  const photo = corpusFile('photos/coffee.png');

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'enterprise', 50);
    await eventually(() => balance(account.accountId), (value) => value === 50);
  });

  afterAll(async () => {
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  describe('the standard endpoint, an uploaded PNG at strength medium', () => {
    let created: AntiAiOrderCreatedView;
    let finished: WatermarkOrderView;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      const hook = await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: 'anti-ai', url: receiver.url() } });
      expect(hook.status).toBe(201);
    });

    afterAll(async () => {
      await receiver.stop();
    });

    it('creates a pending order with an upload URL, named as asked, for 1 credit per image', async () => {
      const response = await createAntiAi(account.liveKey, { idempotencyKey: randomUUID(), orderName: 'spring catalogue', files: [{ fileName: 'coffee.png' }], options: { strength: 'medium' } });
      expect(response.status).toBe(200);
      created = response.body.data;
      expect(created).toMatchObject({ orderName: 'spring catalogue', status: 'pending' });
      expect(created.files).toHaveLength(1);
      expect(created.files[0]).toMatchObject({ fileName: 'coffee.png', fileFormat: 'PNG', fileType: 'IMG' });
      expect(created.files[0].uploadUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.+X-Amz-Signature=/);
      await eventually(() => balance(account.accountId), (value) => value === 49);
    });

    it('completes once the file is uploaded, and the v3 read shows its one output', async () => {
      expect(await put(created.files[0].uploadUrl, photo)).toBe(200);
      finished = await waitForOrder(account.liveKey, created.orderId);
      expect(finished.status).toBe('complete');
      expect(finished.outputs).toHaveLength(1);
      expect(finished.outputs[0]).toMatchObject({ status: 'completed', mediaKind: 'image' });
    });

    it('downloads a copy whose pixels are the original ones and whose XMP refuses AI training', async () => {
      const response = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
      expect(response.status).toBe(200);
      const file = await download(response.body.data.downloadUrl);
      expect(file.status).toBe(200);
      const [before, after] = await Promise.all([sharp(photo).raw().toBuffer(), sharp(file.body).raw().toBuffer()]);
      expect(after.equals(before)).toBe(true);
      const xmp = (await sharp(file.body).metadata()).xmp?.toString('utf8') ?? '';
      expect(xmp).toContain('DMI-PROHIBITED');
      expect(xmp).toMatch(/reservation[^0-9]{0,40}1/);
      // The signed manifest, read and validated by c2pa-rs (the stack signs with a development certificate, so the
      // signature is valid and the signer untrusted): every CAWG training and mining entry says notAllowed.
      const manifest = await readContentCredentials(file.body, 'png');
      expect(manifest.validationState).toBe('Valid');
      expect(manifest.failures).toEqual(['signingCredential.untrusted']);
      expect(Object.values(manifest.trainingMining)).toEqual(['notAllowed', 'notAllowed', 'notAllowed', 'notAllowed']);
    });

    it('tells the client by a signed order.antiAi.completed webhook with fileCount and a download URL', async () => {
      const events = await eventually(
        () => Promise.resolve(receiver.received.map((request) => JSON.parse(request.rawBody.toString('utf8')) as { eventType: string; data: Record<string, unknown> })),
        (bodies) => bodies.some((body) => body.eventType === 'order.antiAi.completed' && body.data.orderId === created.orderId),
      );
      const completed = events.find((body) => body.eventType === 'order.antiAi.completed' && body.data.orderId === created.orderId);
      expect(completed?.data).toMatchObject({ orderId: created.orderId, fileCount: 1 });
      expect(String(completed?.data.downloadUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.+X-Amz-Signature=/);
      expect(receiver.received[0].headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    });

    it('the deprecated v2 detail says antiAi and has a WebP thumbnail within 740×400, aspect ratio kept', async () => {
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: account.liveKey });
      expect(detail.status).toBe(200);
      expect(detail.body.data).toMatchObject({ orderId: created.orderId, orderName: 'spring catalogue', type: 'antiAi', status: 'complete', fileCount: 1 });
      const thumbnail = await download(detail.body.data.thumbnailImageUrl ?? '');
      expect(thumbnail.status).toBe(200);
      const [input, made] = await Promise.all([sharp(photo).metadata(), sharp(thumbnail.body).metadata()]);
      expect(made.format).toBe('webp');
      expect(made.width).toBeLessThanOrEqual(740);
      expect(made.height).toBeLessThanOrEqual(400);
      expect(Math.max(made.width ?? 0, made.height ?? 0)).toBeGreaterThanOrEqual(Math.min(400, Math.max(input.width ?? 0, input.height ?? 0)) - 1);
      expect(Math.abs((made.width ?? 0) / (made.height ?? 1) - (input.width ?? 0) / (input.height ?? 1))).toBeLessThan(0.02);
    });

    it('the v2 result URLs serve the file and a ZIP', async () => {
      const urls = await api<{ data: { files: Array<{ downloadUrl: string }>; archiveUrl: string } }>(`/api/v2/orders/${created.orderId}/download-urls`, { key: account.liveKey });
      expect(urls.status).toBe(200);
      expect((await download(urls.body.data.files[0].downloadUrl)).status).toBe(200);
      const archive = await download(urls.body.data.archiveUrl);
      expect(archive.body.subarray(0, 2).toString()).toBe('PK');
    });

    it('every result URL is served with the AI-training opt-out headers; an altered link is 404', async () => {
      const v3 = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
      const v2 = await api<{ data: { files: Array<{ downloadUrl: string }>; archiveUrl: string } }>(`/api/v2/orders/${created.orderId}/download-urls`, { key: account.liveKey });
      for (const url of [v3.body.data.downloadUrl, v2.body.data.files[0].downloadUrl, v2.body.data.archiveUrl]) {
        expect(url).toContain('/api/v2/results/');
        const response = await fetch(url);
        await response.arrayBuffer();
        expect([response.status, response.headers.get('x-robots-tag'), response.headers.get('tdm-reservation')]).toEqual([200, 'noai, noimageai', '1']);
        expect(response.headers.get('content-disposition')).toContain('attachment');
        expect([response.headers.get('x-content-type-options'), response.headers.get('content-security-policy')]).toEqual(['nosniff', "default-src 'none'; sandbox"]);
      }
      // The local S3 server checks no signature: the gateway's own check is what refuses a read without a live
      // presigned query (the outside review read any account's results so), a subresource, and a type override.
      const link = new URL(v3.body.data.downloadUrl);
      const unsigned = `${link.origin}${link.pathname}`;
      for (const url of [unsigned, `${unsigned}?acl`, `${link.href}&response-content-type=text%2Fhtml`]) {
        const response = await fetch(url);
        expect([url, response.status, await response.json()]).toEqual([url, 404, { code: 'RESOURCE_NOT_FOUND' }]);
      }
      // Storage checks the signature (MinIO; the local S3 server here finds no such object), and only the outputs
      // bucket is relayed, also through `..`.
      const altered = v3.body.data.downloadUrl.replace(/\.png\?/, '.jpg?');
      const refused = await fetch(altered);
      expect([refused.status, await refused.json()]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }]);
      const otherBucket = await fetch(v3.body.data.downloadUrl.replace('/api/v2/results/cp-outputs/', '/api/v2/results/cp-inputs/'));
      expect([otherBucket.status, await otherBucket.json()]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }]);
      const escaped = await fetch(v3.body.data.downloadUrl.replace('/api/v2/results/cp-outputs/', '/api/v2/results/cp-outputs/%2e%2e/cp-inputs/'));
      expect([escaped.status, await escaped.json()]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }]);
    });
  });

  describe("zero-copy: results PUT to the client's own bucket (an HTTPS S3 server) by presigned URLs", () => {
    const bucket = 'client-bucket';
    let server: S3rver;
    let client: Client;
    let own: TestAccount;

    beforeAll(async () => {
      const dir = clientTlsDir();
      const tls = { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) };
      server = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 'client-s3-')), silent: true, vhostBuckets: false, ...tls });
      const { port } = await server.run();
      client = new Client({ endPoint: '127.0.0.1', port, useSSL: true, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1', pathStyle: true, transportAgent: new Agent({ ca: tls.cert }) });
      await client.makeBucket(bucket, 'us-east-1');
      own = await createAccount(gateway, 'enterprise', 10);
      await eventually(() => balance(own.accountId), (value) => value === 10);
    });

    afterAll(async () => {
      await server.close();
    });

    const presigned = async (key: string, expiresAt = new Date(Date.now() + 600_000)) => ({
      fileKey: key,
      url: await client.presignedPutObject(bucket, key, 600),
      presignedUrlExpiresAt: expiresAt.toISOString(),
    });

    async function clientObject(key: string): Promise<Buffer | null> {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of await client.getObject(bucket, key)) {
          chunks.push(chunk as Buffer);
        }
        return Buffer.concat(chunks);
      } catch {
        return null;
      }
    }

    async function zeroCopyOrder(target: { fileKey: string; url: string; presignedUrlExpiresAt: string }): Promise<WatermarkOrderView> {
      const response = await createAntiAi(own.liveKey, { idempotencyKey: randomUUID(), files: [{ fileName: target.fileKey }], options: { strength: 'medium' }, mode: { zeroCopy: true, outputTargets: [target] } });
      expect(response.status).toBe(200);
      expect(await put(response.body.data.files[0].uploadUrl, photo)).toBe(200);
      return waitForOrder(own.liveKey, response.body.data.orderId, ['complete', 'failed'], 60_000);
    }

    it('success: the protected copy lands in their bucket (same pixels, opt-out XMP), nothing to download from us', async () => {
      const done = await zeroCopyOrder(await presigned('delivered.png'));
      expect(done.status).toBe('complete');
      const delivered = await clientObject('delivered.png');
      expect(delivered).not.toBeNull();
      const [before, after] = await Promise.all([sharp(photo).raw().toBuffer(), sharp(delivered ?? Buffer.alloc(0)).raw().toBuffer()]);
      expect(after.equals(before)).toBe(true);
      expect((await sharp(delivered ?? Buffer.alloc(0)).metadata()).xmp?.toString('utf8')).toContain('DMI-PROHIBITED');
      const download = await api(`/api/v3/orders/${done.orderId}/download`, { key: own.liveKey });
      expect([download.status, download.body]).toEqual([400, { code: 'VALIDATION_FAILED' }]);
      expect(await balance(own.accountId)).toBe(9);
    });

    it.each([
      ['a target whose presignedUrlExpiresAt has passed', 'ANTI_AI_OUTPUT_TARGET_EXPIRED', () => presigned('late.png', new Date(Date.now() - 60_000))],
      ['a target the server refuses (no such bucket)', 'ANTI_AI_OUTPUT_TARGET_REFUSED', async () => ({ ...(await presigned('refused.png')), url: (await presigned('refused.png')).url.replace(`/${bucket}/`, '/no-such-bucket/') })],
    ])('%s fails the order with %s, the credit comes back, nothing lands', async (_name, code, makeTarget) => {
      const before = await balance(own.accountId);
      const target = await makeTarget();
      const done = await zeroCopyOrder(target);
      expect(done.status).toBe('failed');
      const detail = (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${done.orderId}`, { key: own.liveKey })).body.data;
      expect(detail.errors?.errorCode).toBe(code);
      await eventually(() => balance(own.accountId), (value) => value === before);
      expect(await clientObject(target.fileKey)).toBeNull();
    });
  });

  it('strength high: a copy stripped of every metadata still proves the opt-out through an extract order', async () => {
    const created = (await createAntiAi(account.liveKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'coffee.png' }], options: { strength: 'high' } })).body.data;
    expect(await put(created.files[0].uploadUrl, photo)).toBe(200);
    expect((await waitForOrder(account.liveKey, created.orderId, ['complete', 'failed'], 120_000)).status).toBe('complete');
    const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
    const protectedCopy = (await download(link.body.data.downloadUrl)).body;
    expect((await sharp(protectedCopy).metadata()).xmp?.toString('utf8')).toContain('DMI-PROHIBITED');
    // What a scraper keeps: pixels only, re-encoded, no XMP, no C2PA.
    const stripped = await sharp(protectedCopy).jpeg({ quality: 90 }).toBuffer();
    expect((await sharp(stripped).metadata()).xmp).toBeUndefined();
    const extract = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', {
      key: account.liveKey,
      method: 'POST',
      body: { idempotencyKey: randomUUID(), file: { fileName: 'scraped.jpg', originalFile: { fileName: 'coffee.png' } } },
    });
    expect(extract.status).toBe(200);
    expect(await uploadFiles(extract.body.data, [photo, stripped])).toEqual([200, 200]);
    const result = await waitForOrder(account.liveKey, extract.body.data.orderId, ['complete', 'failed'], 120_000);
    expect(result.result).toMatchObject({ detectionStatus: 'detected' });
    expect(result.result?.watermarkText).toBe(`AI training opt-out (anti-AI order ${created.orderId}, account ${account.accountId})`);
  });

  it('the same key with another body is 409; with the same body it returns the same order', async () => {
    const body = { idempotencyKey: randomUUID(), files: [{ fileName: 'a.jpg' }] };
    const first = await createAntiAi(account.liveKey, body);
    const again = await createAntiAi(account.liveKey, body);
    const other = await createAntiAi(account.liveKey, { ...body, files: [{ fileName: 'b.jpg' }] });
    expect(first.status).toBe(200);
    expect(again.body.data.orderId).toBe(first.body.data.orderId);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ code: 'WATERMARK_V2_CONFLICT' });
  });

  it('refuses bad bodies with VALIDATION_FAILED: PDF, unknown strength, long name, zero-copy targets that do not match the files, private targets', async () => {
    const target = (fileKey: string, url = 'https://bucket.example.com/x?X-Amz-Signature=1') => ({ fileKey, url, presignedUrlExpiresAt: '2030-01-01T00:00:00Z' });
    const bodies = [
      { files: [{ fileName: 'contract.pdf' }] },
      { files: [{ fileName: 'a.jpg' }], options: { strength: 'maximum' } },
      { files: [{ fileName: 'a.jpg' }], orderName: 'x'.repeat(65) },
      { files: [{ fileName: 'a.jpg' }, { fileName: 'b.jpg' }], mode: { zeroCopy: true, outputTargets: [target('a.jpg')] } },
      // Private and metadata addresses (the stack allows only 127.0.0.1, for the client-bucket tests below).
      { files: [{ fileName: 'a.jpg' }], mode: { zeroCopy: true, outputTargets: [target('a.jpg', 'https://10.0.0.7/x')] } },
      { files: [{ fileName: 'a.jpg' }], mode: { zeroCopy: true, outputTargets: [target('a.jpg', 'https://169.254.169.254/latest')] } },
      { files: [{ fileName: 'a.jpg' }], mode: { zeroCopy: true, outputTargets: [target('a.jpg', 'http://127.0.0.1:9/x')] } },
      { files: [{ fileName: 'a.jpg' }], mode: { zeroCopy: false, outputTargets: [target('a.jpg')] } },
    ];
    const before = await balance(account.accountId);
    for (const body of bodies) {
      const response = await createAntiAi(account.liveKey, { idempotencyKey: randomUUID(), ...body });
      expect([response.status, response.body]).toEqual([400, { code: 'VALIDATION_FAILED' }]);
    }
    expect(await balance(account.accountId)).toBe(before);
  });

  it('with-urls (deprecated): inProgress at once with Deprecation and Link; an image that cannot be fetched fails the order and restores the credit', async () => {
    const own = await createAccount(gateway, 'enterprise', 5);
    await eventually(() => balance(own.accountId), (value) => value === 5);
    const response = await createWithUrls(own.liveKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'photo.jpg', imageUrl: 'https://images.example.com/photo.jpg' }], options: { strength: 'high' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.headers.get('link')).toBe('</api/v2/orders/anti-ai>; rel="successor-version"');
    expect(response.body.data).toMatchObject({ status: 'inProgress', orderName: `anti-ai-${response.body.data.orderId}` });
    const failed = await waitForOrder(own.liveKey, response.body.data.orderId);
    expect(failed.status).toBe('failed');
    await eventually(() => balance(own.accountId), (value) => value === 5);
    const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${response.body.data.orderId}`, { key: own.liveKey });
    expect(detail.body.data.errors?.errorCode).toBe('WATERMARK_SOURCE_URL_FAILED');
  });

  it('test keys: the whole lifecycle with the sample result, no processing and no credits', async () => {
    const before = await balance(account.accountId);
    const response = await createAntiAi(account.testKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'coffee.png' }] });
    expect(response.status).toBe(200);
    expect(response.body.data.files[0].fileKey).toMatch(/^test\//);
    expect(await put(response.body.data.files[0].uploadUrl, photo)).toBe(200);
    const done = await waitForOrder(account.testKey, response.body.data.orderId);
    expect(done.status).toBe('complete');
    const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${done.orderId}/download`, { key: account.testKey });
    expect(link.status).toBe(200);
    expect((await download(link.body.data.downloadUrl)).status).toBe(200);
    expect(await balance(account.accountId)).toBe(before);
    // Live keys never see test orders.
    expect((await api(`/api/v3/orders/${done.orderId}`, { key: account.liveKey })).status).toBe(404);
    expect((await getOrder(account.testKey, done.orderId)).orderId).toBe(done.orderId);
  });
});

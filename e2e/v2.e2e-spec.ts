// The deprecated v2 surface and its retirement at 2026-10-09T00:00:00Z (issue 9), with a moved clock:
// the real date is after the retirement, so "before" moves every service's clock back.
import { V2DownloadUrlsView, V2EmbedOrderCreatedView, V2ExtractOrderCreatedView, V2OrderDetailView, V2RecentStatsView, V2RefreshUrlsView, WatermarkOrderView } from '@cp/contracts';
import { extractImage } from '@cp/watermark';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { api, ApiResponse, createAccount, eventually, layout, openSchema, setClockOffset, TestAccount } from './support/e2e-stack';
import { corpusFile, download, getOrder, waitForOrder } from './support/orders';
import { readZip } from '@cp/testing';

const SECRET = layout.extraEnv?.WATERMARK_SECRET ?? '';
const SUNSET = 'Fri, 09 Oct 2026 00:00:00 GMT';

/** Moves every service's clock to `iso` (relative to real time). */
function clockAt(iso: string): void {
  setClockOffset(new Date(iso).getTime() - Date.now());
}

function v2EmbedBody(files: Array<{ fileName: string; texts: string[] }>, idempotencyKey: string = randomUUID()): Record<string, unknown> {
  return { idempotencyKey, files: files.map((file) => ({ fileName: file.fileName, watermarks: file.texts.map((text) => ({ text })) })) };
}

async function put(url: string | null | undefined, body: Buffer): Promise<number> {
  const response = await fetch(url ?? '', { method: 'PUT', body: new Uint8Array(body) });
  await response.arrayBuffer();
  return response.status;
}

function expectDeprecationHeaders(response: ApiResponse<unknown>, successor: string): void {
  expect(response.headers.get('deprecation')).toBe('true');
  expect(response.headers.get('sunset')).toBe(SUNSET);
  expect(response.headers.get('link')).toBe(`<${successor}>; rel="successor-version"`);
}

describe('v2 (deprecated) orders and the v2 retirement', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  const embedV2 = (key: string, body: unknown) =>
    api<{ data: V2EmbedOrderCreatedView; code?: string }>('/api/v2/orders/wtr-embed', { key, method: 'POST', body });

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'enterprise', 100);
    await eventually(() => balance(account.accountId), (value) => value === 100);
    clockAt('2026-10-01T09:00:00.000Z');
  });

  afterAll(async () => {
    setClockOffset(0);
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  describe('before the retirement', () => {
    const original = corpusFile('photos/coffee.png');
    let created: V2EmbedOrderCreatedView;
    let finished: WatermarkOrderView;

    it('POST wtr-embed answers the v2 shape with Deprecation, Sunset and Link, and charges 1 credit per text', async () => {
      const key = randomUUID();
      const response = await embedV2(account.liveKey, v2EmbedBody([{ fileName: 'coffee.png', texts: ['v2: alice'] }], key));
      expect(response.status).toBe(200);
      expectDeprecationHeaders(response, '/api/v3/orders/wtr-embed');
      created = response.body.data;
      expect(created).toMatchObject({ orderName: `watermark-embed-${created.orderId}`, status: 'pending' });
      expect(created.files).toHaveLength(1);
      const [file] = created.files;
      expect(Number.isInteger(file.fileId)).toBe(true);
      expect(file).toMatchObject({
        fileName: 'coffee.png',
        fileKey: `${account.accountId}/${created.orderId}/inputs/${file.fileId}/coffee.png`,
        fileFormat: 'PNG',
        fileType: 'IMG',
      });
      expect(file.uploadUrl).toMatch(/X-Amz-Expires=900/);
      await eventually(() => balance(account.accountId), (value) => value === 99);
      // v2 idempotency: the same key returns the original order, whatever the body.
      const again = await embedV2(account.liveKey, v2EmbedBody([{ fileName: 'other.jpg', texts: ['x', 'y'] }], key));
      expect(again.status).toBe(200);
      expect(again.body.data.orderId).toBe(created.orderId);
      expect(await balance(account.accountId)).toBe(99);
    });

    it('errors of the retiring routes carry the headers too', async () => {
      const response = await embedV2(account.liveKey, { idempotencyKey: 'k', files: [{ fileName: 'a.tif', watermarks: [{ text: 't' }] }] });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
      expectDeprecationHeaders(response, '/api/v3/orders/wtr-embed');
    });

    it('processes after the upload; GET /api/v2/orders/{id} gives the detail of spec 2.7', async () => {
      expect(await put(created.files[0].uploadUrl, original)).toBe(200);
      finished = await waitForOrder(account.liveKey, created.orderId);
      expect(finished.status).toBe('complete');
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: account.liveKey });
      expect(detail.status).toBe(200);
      expect(detail.headers.get('deprecation')).toBe('true');
      expect(detail.headers.get('link')).toBe(`</api/v3/orders/${created.orderId}>; rel="successor-version"`);
      expect(detail.body.data).toMatchObject({
        orderId: created.orderId,
        orderName: created.orderName,
        type: 'watermarkEmbed',
        channel: 'api',
        status: 'complete',
        fileCount: 1,
        errors: null,
        watermarkTexts: ['v2: alice'],
      });
      expect(detail.body.data.thumbnailImageUrl).toMatch(/X-Amz-Expires=3600/);
      expect(detail.body.data.statusCode).toBeUndefined();
    });

    it('the v2 result download gives a URL per output and a ZIP archive, valid 1 hour', async () => {
      const response = await api<{ data: V2DownloadUrlsView }>(`/api/v2/orders/${created.orderId}/download-urls`, { key: account.liveKey });
      expect(response.status).toBe(200);
      const data = response.body.data;
      expect(data.expiresInSeconds).toBe(3600);
      expect(data.files).toHaveLength(1);
      const output = finished.outputs[0];
      expect(data.files[0]).toMatchObject({ fileId: output.fileId, inputFileId: output.inputFileId, fileName: `coffee-watermarked-${output.fileId}.png` });
      const single = await download(data.files[0].downloadUrl);
      expect(single.status).toBe(200);
      const archive = await download(data.archiveUrl);
      expect(archive.disposition).toContain(`${created.orderId}-watermarked.zip`);
      const entries = await readZip(archive.body);
      expect([...entries.keys()]).toEqual([`coffee-watermarked-${output.fileId}.png`]);
      expect(entries.get(`coffee-watermarked-${output.fileId}.png`)?.equals(single.body)).toBe(true);
    });

    it('the v2 mark is of another version: v3 extract never detects it', async () => {
      const link = await api<{ data: V2DownloadUrlsView }>(`/api/v2/orders/${created.orderId}/download-urls`, { key: account.liveKey });
      const marked = (await download(link.body.data.files[0].downloadUrl)).body;
      expect((await extractImage(marked, original, { key: { secret: SECRET, version: 'v2' } })).status).toBe('detected');
      expect((await extractImage(marked, original, { key: { secret: SECRET, version: 'v3' } })).status).not.toBe('detected');
      const watermark = await openSchema('watermark');
      const issuance = await watermark.query<Array<{ algorithm: string }>>('SELECT algorithm FROM issuance WHERE output_file_id = $1', [finished.outputs[0].fileId]);
      await watermark.destroy();
      expect(issuance).toEqual([{ algorithm: 'v2' }]);
      // Through the API: a v3 extract order of the v2-marked file against its original.
      const extract = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', {
        key: account.liveKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), file: { fileName: 'found.png', originalFile: { fileName: 'coffee.png' } } },
      });
      expect(extract.status).toBe(200);
      expect(await put(extract.body.data.files[0].uploadUrl, original)).toBe(200);
      expect(await put(extract.body.data.files[1].uploadUrl, marked)).toBe(200);
      const result = await waitForOrder(account.liveKey, extract.body.data.orderId, ['complete', 'failed'], 120_000);
      expect(result.status).toBe('complete');
      expect(result.result?.detectionStatus).not.toBe('detected');
      expect(result.result?.watermarkText).toBeNull();
    });

    it('a v2 extract order (with its original) finds the v2 mark and names the recipient', async () => {
      const link = await api<{ data: V2DownloadUrlsView }>(`/api/v2/orders/${created.orderId}/download-urls`, { key: account.liveKey });
      const marked = (await download(link.body.data.files[0].downloadUrl)).body;
      const response = await api<{ data: V2ExtractOrderCreatedView }>('/api/v2/orders/wtr-extract', {
        key: account.liveKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), file: { fileName: 'leaked.png' }, includeOriginal: true },
      });
      expect(response.status).toBe(200);
      expect(await put(response.body.data.originalFile?.uploadUrl, original)).toBe(200);
      expect(await put(response.body.data.file.uploadUrl, marked)).toBe(200);
      const result = await waitForOrder(account.liveKey, response.body.data.orderId, ['complete', 'failed'], 120_000);
      expect(result.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'v2: alice' });
    });

    it('POST wtr-extract answers the v2 shape; includeOriginal adds the original file entry; not for PDFs', async () => {
      const response = await api<{ data: V2ExtractOrderCreatedView }>('/api/v2/orders/wtr-extract', {
        key: account.liveKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), file: { fileName: 'found.jpg' }, includeOriginal: true },
      });
      expect(response.status).toBe(200);
      expectDeprecationHeaders(response, '/api/v3/orders/wtr-extract');
      const data = response.body.data;
      expect(data.file).toMatchObject({ fileName: 'found.jpg', fileFormat: 'JPG', fileType: 'IMG', role: 'watermarked', sequence: 1 });
      expect(data.originalFile).toMatchObject({ fileName: 'original-found.jpg', fileType: 'IMG', role: 'original', sequence: 1 });
      expect(Number.isInteger(data.file.fileId)).toBe(true);
      expect(data.file.uploadUrl).toMatch(/X-Amz-Expires=900/);

      const single = await api<{ data: V2ExtractOrderCreatedView }>('/api/v2/orders/wtr-extract', {
        key: account.testKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), file: { fileName: 'scan.pdf' } },
      });
      expect(single.status).toBe(200);
      expect(single.body.data.file).toMatchObject({ fileFormat: 'PDF', fileType: 'DOCUMENT', role: 'watermarked' });
      expect(single.body.data.file.fileKey).toMatch(/^test\//);
      expect(single.body.data.originalFile).toBeUndefined();

      const pdfWithOriginal = await api('/api/v2/orders/wtr-extract', {
        key: account.liveKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), file: { fileName: 'scan.pdf' }, includeOriginal: true },
      });
      expect(pdfWithOriginal.status).toBe(400);
      expect(pdfWithOriginal.body).toEqual({ code: 'VALIDATION_FAILED' });
    });

    it('a test-key v2 extract completes with a simulated result; the detail carries statusCode', async () => {
      const response = await api<{ data: V2ExtractOrderCreatedView }>('/api/v2/orders/wtr-extract', {
        key: account.testKey,
        method: 'POST',
        body: { idempotencyKey: randomUUID(), file: { fileName: 'detected.png' } },
      });
      expect(await put(response.body.data.file.uploadUrl, Buffer.from('x'))).toBe(200);
      await waitForOrder(account.testKey, response.body.data.orderId);
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${response.body.data.orderId}`, { key: account.testKey });
      expect(detail.body.data).toMatchObject({ type: 'watermarkExtract', status: 'complete', statusCode: 'detected', fileCount: 1, thumbnailImageUrl: null });
    });

    it('refresh-urls: 1-hour URLs for pending orders; WEBHOOK_NOT_FOUND for unknown ones; 400 once not pending', async () => {
      const pending = (await embedV2(account.liveKey, v2EmbedBody([{ fileName: 'late.png', texts: ['a'] }]))).body.data;
      const refreshed = await api<{ data: V2RefreshUrlsView }>(`/api/v2/orders/${pending.orderId}/refresh-urls`, { key: account.liveKey, method: 'POST' });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.data.files).toEqual([
        { fileId: String(pending.files[0].fileId), fileName: 'late.png', uploadUrl: expect.stringMatching(/X-Amz-Expires=3600/) as string, fileKey: pending.files[0].fileKey },
      ]);
      const unknown = await api(`/api/v2/orders/99999999999/refresh-urls`, { key: account.liveKey, method: 'POST' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: 'WEBHOOK_NOT_FOUND' });
      const done = await api(`/api/v2/orders/${created.orderId}/refresh-urls`, { key: account.liveKey, method: 'POST' });
      expect(done.status).toBe(400);
      expect(done.body).toEqual({ code: 'VALIDATION_FAILED' });
      const noKey = await api(`/api/v2/orders/${pending.orderId}/refresh-urls`, { method: 'POST' });
      expect(noKey.status).toBe(401);
    });

    it('stats/recent counts the orders of each of the last 7 days, with domain and ticks', async () => {
      const own = await createAccount(gateway, 'pro', 0);
      const create = async (iso: string, count: number): Promise<void> => {
        clockAt(iso);
        for (let index = 0; index < count; index += 1) {
          expect((await embedV2(own.testKey, v2EmbedBody([{ fileName: 'a.png', texts: ['t'] }]))).status).toBe(200);
        }
      };
      await create('2026-09-25T12:00:00.000Z', 1); // outside the window
      await create('2026-09-28T00:00:01.000Z', 2);
      await create('2026-09-30T23:59:00.000Z', 1);
      await create('2026-10-04T08:00:00.000Z', 6);
      const response = await api<{ data: V2RecentStatsView }>('/api/v2/orders/stats/recent?date=2026-10-04', { key: own.testKey });
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        dailyStats: [
          { usageDate: '2026-09-28', usageCount: 2 },
          { usageDate: '2026-09-29', usageCount: 0 },
          { usageDate: '2026-09-30', usageCount: 1 },
          { usageDate: '2026-10-01', usageCount: 0 },
          { usageDate: '2026-10-02', usageCount: 0 },
          { usageDate: '2026-10-03', usageCount: 0 },
          { usageDate: '2026-10-04', usageCount: 6 },
        ],
        domain: [0, 8],
        ticks: [0, 2, 4, 6, 8],
      });
      // Without a date: the 7 days ending today (by the service clock); live keys count live orders only.
      const today = await api<{ data: V2RecentStatsView }>('/api/v2/orders/stats/recent', { key: own.testKey });
      expect(today.body.data.dailyStats[6]).toEqual({ usageDate: '2026-10-04', usageCount: 6 });
      const live = await api<{ data: V2RecentStatsView }>('/api/v2/orders/stats/recent?date=2026-10-04', { key: own.liveKey });
      expect(live.body.data.dailyStats.every((day) => day.usageCount === 0)).toBe(true);
      expect((await api('/api/v2/orders/stats/recent?date=yesterday', { key: own.testKey })).status).toBe(400);
    });
  });

  describe('at the retirement time', () => {
    let own: TestAccount;
    let pending: V2EmbedOrderCreatedView;
    let pendingTest: V2EmbedOrderCreatedView;
    let completed: string;

    beforeAll(async () => {
      own = await createAccount(gateway, 'enterprise', 10);
      await eventually(() => balance(own.accountId), (value) => value === 10);
      clockAt('2026-10-08T23:58:00.000Z');
      const done = (await embedV2(own.testKey, v2EmbedBody([{ fileName: 'a.png', texts: ['t'] }]))).body.data;
      expect(await put(done.files[0].uploadUrl, Buffer.from('x'))).toBe(200);
      expect((await waitForOrder(own.testKey, done.orderId)).status).toBe('complete');
      completed = done.orderId;
      pending = (await embedV2(own.liveKey, v2EmbedBody([{ fileName: 'a.png', texts: ['one', 'two', 'three'] }]))).body.data;
      pendingTest = (await embedV2(own.testKey, v2EmbedBody([{ fileName: 'b.png', texts: ['one'] }]))).body.data;
      await eventually(() => balance(own.accountId), (value) => value === 7);
      clockAt('2026-10-09T00:00:05.000Z');
    });

    it('a pending v2 order fails with WATERMARK_V2_API_SUNSET, is not charged, and its credits come back', async () => {
      const failed = await waitForOrder(own.liveKey, pending.orderId, ['failed'], 30_000);
      expect(failed.files[0].uploadUrl).toBeNull();
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${pending.orderId}`, { key: own.liveKey });
      expect(detail.body.data.status).toBe('failed');
      expect(detail.body.data.errors).toEqual({ errorCode: 'WATERMARK_V2_API_SUNSET', errorMessage: 'v2 워터마크 API 지원이 종료되었습니다. v3 API를 사용해 주세요.' });
      await eventually(() => balance(own.accountId), (value) => value === 10);
      expect((await waitForOrder(own.testKey, pendingTest.orderId, ['failed'], 30_000)).status).toBe('failed');
      // An upload arriving after the retirement does not start it again.
      expect((await getOrder(own.liveKey, pending.orderId)).status).toBe('failed');
    });

    it('new v2 embed and extract orders get 410 with the Link header, for live and test keys; 401 stays 401', async () => {
      for (const key of [own.liveKey, own.testKey]) {
        const embed = await embedV2(key, v2EmbedBody([{ fileName: 'a.png', texts: ['t'] }]));
        expect(embed.status).toBe(410);
        expect(embed.body).toEqual({ code: 'WATERMARK_V2_API_SUNSET' });
        expectDeprecationHeaders(embed, '/api/v3/orders/wtr-embed');
        const extract = await api('/api/v2/orders/wtr-extract', { key, method: 'POST', body: { idempotencyKey: randomUUID(), file: { fileName: 'a.png' } } });
        expect(extract.status).toBe(410);
        expect(extract.body).toEqual({ code: 'WATERMARK_V2_API_SUNSET' });
        expectDeprecationHeaders(extract, '/api/v3/orders/wtr-extract');
        // Even an invalid body: the route is gone, so it is 410, not 400.
        expect((await embedV2(key, { nonsense: true })).status).toBe(410);
      }
      expect((await embedV2('sk_live_not_a_real_key_000000000000', v2EmbedBody([{ fileName: 'a.png', texts: ['t'] }]))).status).toBe(401);
      expect((await api('/api/v2/orders/wtr-embed', { method: 'POST', body: {} })).status).toBe(401);
    });

    it('existing v2 orders and their results stay readable within the retention period', async () => {
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${completed}`, { key: own.testKey });
      expect(detail.status).toBe(200);
      expect(detail.body.data.status).toBe('complete');
      const links = await api<{ data: V2DownloadUrlsView }>(`/api/v2/orders/${completed}/download-urls`, { key: own.testKey });
      expect(links.status).toBe(200);
      expect(links.body.data.files[0].downloadUrl).toContain('samples/sample-watermarked.png');
      expect(links.body.data.archiveUrl).toContain('samples/sample-watermarked.zip');
      expect((await download(links.body.data.archiveUrl)).status).toBe(200);
      expect((await api(`/api/v3/orders/${completed}/download`, { key: own.testKey })).status).toBe(200);
    });
  });
});

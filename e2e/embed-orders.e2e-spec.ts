// v3 watermark embed orders over HTTP against all services (issue 4).
import { StorageEnv, toStorageConfig, validateEnv } from '@cp/config';
import { ObjectKeys, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { extractImage, serialOfPayload } from '@cp/watermark';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { IncomingMessage, request } from 'node:http';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, setClockOffset, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, download, embedBody, getOrder, uploadFiles, waitForOrder } from './support/orders';
import { readZip } from '@cp/testing';

const WATERMARK_KEY = { secret: layout.extraEnv?.WATERMARK_SECRET ?? '', version: 'v3' as const };

describe('v3 watermark embed orders', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let watermark: DataSource;
  let account: TestAccount;

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  /** An account of its own, so credit checks are not disturbed by other tests' late refunds. */
  const freshAccount = async (credits: number): Promise<TestAccount> => {
    const created = await createAccount(gateway, 'enterprise', credits);
    await eventually(() => balance(created.accountId), (value) => value === credits);
    return created;
  };

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    watermark = await openSchema('watermark');
    account = await createAccount(gateway, 'enterprise', 200);
    await eventually(() => balance(account.accountId), (value) => value === 200);
  });

  afterAll(async () => {
    setClockOffset(0);
    await Promise.all([gateway.destroy(), orders.destroy(), watermark.destroy()]);
  });

  describe('the full flow: 2 files x 2 texts, live key', () => {
    let created: WatermarkOrderView;
    let finished: WatermarkOrderView;
    const originals = [corpusFile('photos/coffee.png'), corpusFile('photos/rocket.jpg')];

    it('creates the order in the shape of spec 2.1 and charges 1 credit per text', async () => {
      const response = await createEmbed(
        account.liveKey,
        embedBody([
          { fileName: 'coffee.png', texts: ['to: alice@example.com', 'to: bob@example.com'] },
          { fileName: 'rocket.jpg', texts: ['issue #7 for carol', '세계 (dave)'] },
        ]),
      );
      expect(response.status).toBe(200);
      created = response.body.data;
      expect(created.orderId).toMatch(/^[0-9]{1,20}$/);
      expect(created).toMatchObject({ status: 'pending', processingDelayed: false, result: null, reports: [] });
      expect(new Date(created.expiresAt ?? '').getTime()).toBeGreaterThan(Date.now() + 24 * 3600_000);
      expect(created.files).toHaveLength(2);
      for (const file of created.files) {
        expect(file.fileId).toMatch(/^[0-9]+$/);
        expect(file.uploadUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.+X-Amz-Expires=900/);
      }
      const [first, second] = created.files.map((file) => file.fileId);
      expect(created.outputs).toEqual([
        { fileId: `${first}-1`, inputFileId: first, outputIndex: 0, watermarkText: 'to: alice@example.com', status: 'pending', mediaKind: 'image' },
        { fileId: `${first}-2`, inputFileId: first, outputIndex: 1, watermarkText: 'to: bob@example.com', status: 'pending', mediaKind: 'image' },
        { fileId: `${second}-1`, inputFileId: second, outputIndex: 0, watermarkText: 'issue #7 for carol', status: 'pending', mediaKind: 'image' },
        { fileId: `${second}-2`, inputFileId: second, outputIndex: 1, watermarkText: '세계 (dave)', status: 'pending', mediaKind: 'image' },
      ]);
      await eventually(() => balance(account.accountId), (value) => value === 196);
    });

    it('a download before completion is VALIDATION_FAILED', async () => {
      const response = await api(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
    });

    it('starts by itself once both files are uploaded, and completes', async () => {
      expect(await uploadFiles(created, originals)).toEqual([200, 200]);
      finished = await waitForOrder(account.liveKey, created.orderId);
      expect(finished.status).toBe('complete');
      expect(finished.outputs.map((output) => output.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      expect(finished.files.map((file) => file.uploadUrl)).toEqual([null, null]);
    });

    it('downloads a ZIP named <orderId>-watermarked.zip whose entries carry each issuance', async () => {
      const first = await api<{ data: { downloadUrl: string; expiresInSeconds: number } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
      expect(first.status).toBe(200);
      expect(first.body.data.expiresInSeconds).toBe(300);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
      expect(second.body.data.downloadUrl).not.toBe(first.body.data.downloadUrl);

      const archive = await download(first.body.data.downloadUrl);
      expect(archive.status).toBe(200);
      expect(archive.disposition).toContain(`${created.orderId}-watermarked.zip`);
      const entries = await readZip(archive.body);
      const [coffee, rocket] = created.files.map((file) => file.fileId);
      expect([...entries.keys()].sort()).toEqual(
        [`coffee-watermarked-${coffee}-1.png`, `coffee-watermarked-${coffee}-2.png`, `rocket-watermarked-${rocket}-1.jpg`, `rocket-watermarked-${rocket}-2.jpg`].sort(),
      );
      for (const output of finished.outputs) {
        const original = output.inputFileId === coffee ? originals[0] : originals[1];
        const name = output.inputFileId === coffee ? `coffee-watermarked-${output.fileId}.png` : `rocket-watermarked-${output.fileId}.jpg`;
        const issuance = await watermark.query<Array<{ id: string; watermark_text: string; account_id: string }>>(
          'SELECT id, watermark_text, account_id FROM issuance WHERE output_file_id = $1',
          [output.fileId],
        );
        expect(issuance).toHaveLength(1);
        expect(issuance[0]).toMatchObject({ watermark_text: output.watermarkText, account_id: account.accountId });
        const extracted = await extractImage(entries.get(name) ?? Buffer.alloc(0), original, { key: WATERMARK_KEY });
        // issue 36: the payload embedded is the issuance id scrambled (serialOfPayload undoes it)
        const serial = extracted.payload === undefined ? undefined : serialOfPayload(extracted.payload).toString();
        expect({ name, status: extracted.status, serial }).toEqual({ name, status: 'detected', serial: issuance[0].id });
      }
    });

    it('downloads one output by its file id, named <original>-watermarked-<fileId>.<ext>', async () => {
      const output = finished.outputs[2];
      const response = await api<{ data: { downloadUrl: string; expiresInSeconds: number } }>(
        `/api/v3/orders/${created.orderId}/files/${output.fileId}/download`,
        { key: account.liveKey },
      );
      expect(response.status).toBe(200);
      const file = await download(response.body.data.downloadUrl);
      expect(file.status).toBe(200);
      expect(file.disposition).toContain(`rocket-watermarked-${output.fileId}.jpg`);
      expect(file.body.subarray(0, 2).toString('hex')).toBe('ffd8');
    });

    it('rejects malformed path ids and unknown outputs', async () => {
      expect((await api(`/api/v3/orders/abc/download`, { key: account.liveKey })).body).toEqual({ code: 'VALIDATION_FAILED' });
      expect((await api(`/api/v3/orders/${created.orderId}/files/12/download`, { key: account.liveKey })).body).toEqual({ code: 'VALIDATION_FAILED' });
      const unknown = await api(`/api/v3/orders/${created.orderId}/files/999999-1/download`, { key: account.liveKey });
      expect(unknown.status).toBe(404);
    });

    it('another account, or a test key, does not see the order', async () => {
      const other = await createAccount(gateway, 'pro', 0);
      for (const key of [other.liveKey, account.testKey]) {
        const response = await api(`/api/v3/orders/${created.orderId}`, { key });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
      }
    });
  });

  describe('idempotency', () => {
    it('same key and body → the same order; another body → 409 WATERMARK_V2_CONFLICT', async () => {
      const key = randomUUID();
      const body = embedBody([{ fileName: 'a.png', texts: ['one'] }], key);
      const first = await createEmbed(account.liveKey, body);
      const again = await createEmbed(account.liveKey, body);
      expect(again.status).toBe(200);
      expect(again.body.data.orderId).toBe(first.body.data.orderId);
      const conflict = await createEmbed(account.liveKey, embedBody([{ fileName: 'a.png', texts: ['two'] }], key));
      expect(conflict.status).toBe(409);
      expect(conflict.body).toEqual({ code: 'WATERMARK_V2_CONFLICT' });
    });

    // Outside review: `"originalFileUrl": null` was accepted (an upload slot) and fingerprinted apart from the same body
    // without the field, so the repeat was 409. null is refused now; the body without the field is the one spelling.
    it('"originalFileUrl": null is 400 VALIDATION_FAILED before or after the same body without it, which replays', async () => {
      const key = randomUUID();
      const withNull = { idempotencyKey: key, files: [{ fileName: 'a.jpg', originalFileUrl: null, watermarks: [{ text: 'n1' }] }] };
      const without = { idempotencyKey: key, files: [{ fileName: 'a.jpg', watermarks: [{ text: 'n1' }] }] };
      const refused = await createEmbed(account.liveKey, withNull);
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      const first = await createEmbed(account.liveKey, without);
      expect(first.status).toBe(200);
      const again = await createEmbed(account.liveKey, withNull);
      expect({ status: again.status, body: again.body }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
      const replay = await createEmbed(account.liveKey, without);
      expect(replay.status).toBe(200);
      expect(replay.body.data.orderId).toBe(first.body.data.orderId);
    });

    it('20 concurrent identical requests create exactly one order and charge once', async () => {
      const before = await balance(account.accountId);
      const key = randomUUID();
      const body = embedBody([{ fileName: 'b.jpg', texts: ['x', 'y'] }], key);
      const responses = await Promise.all(Array.from({ length: 20 }, () => createEmbed(account.liveKey, body)));
      expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
      expect(new Set(responses.map((response) => response.body.data.orderId)).size).toBe(1);
      const rows = await orders.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM idempotency_record WHERE idempotency_key = $1', [key]);
      expect(rows[0].n).toBe(1);
      expect(await balance(account.accountId)).toBe(before - 2);
    });
  });

  describe('validation (400 VALIDATION_FAILED)', () => {
    const file = (overrides: Record<string, unknown> = {}) => ({ fileName: 'a.png', watermarks: [{ text: 't' }], ...overrides });
    const cases: Array<[string, unknown]> = [
      ['no idempotencyKey', { files: [file()] }],
      ['idempotencyKey of 256 characters', { idempotencyKey: 'k'.repeat(256), files: [file()] }],
      ['no files', { idempotencyKey: 'k', files: [] }],
      ['101 files', { idempotencyKey: 'k', files: Array.from({ length: 101 }, () => file()) }],
      ['fileName of 256 characters', { idempotencyKey: 'k', files: [file({ fileName: `${'n'.repeat(252)}.png` })] }],
      ['extension not allowed', { idempotencyKey: 'k', files: [file({ fileName: 'a.gif' })] }],
      ['no extension', { idempotencyKey: 'k', files: [file({ fileName: 'png' })] }],
      ['no watermarks', { idempotencyKey: 'k', files: [file({ watermarks: [] })] }],
      ['11 watermarks', { idempotencyKey: 'k', files: [file({ watermarks: Array.from({ length: 11 }, () => ({ text: 't' })) })] }],
      ['empty text', { idempotencyKey: 'k', files: [file({ watermarks: [{ text: '' }] })] }],
      ['text of 1001 characters', { idempotencyKey: 'k', files: [file({ watermarks: [{ text: 'é'.repeat(1001) }] })] }],
      ['http URL', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'http://example.com/a.png' })] }],
      ['loopback URL', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'https://127.0.0.1/a.png' })] }],
      ['private URL', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'https://10.0.0.8/a.png' })] }],
      ['metadata URL', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'https://169.254.169.254/latest' })] }],
      ['localhost URL', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'https://localhost/a.png' })] }],
      ['cluster service URL', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'https://minio.minio-system/a.png' })] }],
      ['URL under no public suffix', { idempotencyKey: 'k', files: [file({ originalFileUrl: 'https://files.corp/a.png' })] }],
      ['unknown field', { idempotencyKey: 'k', files: [file()], extra: true }],
      ['files not an array', { idempotencyKey: 'k', files: 'a.png' }],
    ];
    it.each(cases)('%s', async (_name, body) => {
      const response = await createEmbed(account.liveKey, body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
    });

    it('accepts the limits themselves: 1,000 characters of text, 10 texts, 255-character names', async () => {
      const response = await createEmbed(account.testKey, {
        idempotencyKey: 'k'.repeat(255),
        files: [{ fileName: `${'n'.repeat(251)}.png`, watermarks: Array.from({ length: 10 }, (_, i) => ({ text: `${i}`.padEnd(1000, '가') })) }],
      });
      expect(response.status).toBe(200);
      expect(response.body.data.outputs).toHaveLength(10);
    });
  });

  describe('files that cannot be processed fail the order with a public code and restore credits', () => {
    it.each([
      ['formats/tif-16bit-rgb.tif', 'photo.tif', 'WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED'],
      ['formats/bmp-32bit-alpha.bmp', 'photo.bmp', 'WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED'],
      ['broken/truncated.jpg', 'photo.jpg', 'WATERMARK_FILE_INVALID'],
      ['broken/not-an-image.png', 'photo.png', 'WATERMARK_FILE_INVALID'],
      ['broken/huge-dimensions-bomb.png', 'photo.png', 'WATERMARK_FILE_TOO_LARGE'],
    ])('%s → %s', async (corpus, fileName, code) => {
      const own = await freshAccount(10);
      const created = (await createEmbed(own.liveKey, embedBody([{ fileName, texts: ['a', 'b'] }]))).body.data;
      await eventually(() => balance(own.accountId), (value) => value === 8);
      await uploadFiles(created, [corpusFile(corpus)]);
      const failed = await waitForOrder(own.liveKey, created.orderId);
      expect(failed.status).toBe('failed');
      expect(failed.outputs.every((output) => output.status === 'failed')).toBe(true);
      const rows = await orders.query<Array<{ failure_code: string }>>('SELECT failure_code FROM "order" WHERE id = $1', [created.orderId]);
      expect(rows[0].failure_code).toBe(code);
      expect(await eventually(() => balance(own.accountId), (value) => value === 10)).toBe(10);
    });

    it('a broken file does not hold up another order', async () => {
      const broken = (await createEmbed(account.liveKey, embedBody([{ fileName: 'x.jpg', texts: ['a'] }]))).body.data;
      const good = (await createEmbed(account.liveKey, embedBody([{ fileName: 'camera.png', texts: ['ok'] }]))).body.data;
      await uploadFiles(broken, [corpusFile('broken/empty.jpg')]);
      await uploadFiles(good, [corpusFile('photos/camera.png')]);
      expect((await waitForOrder(account.liveKey, good.orderId)).status).toBe('complete');
      expect((await waitForOrder(account.liveKey, broken.orderId)).status).toBe('failed');
    });
  });

  describe('test keys', () => {
    it('the test-upload sink refuses a bad token before reading the body: an endless body still gets its 404 and the connection is closed', async () => {
      const created = (await createEmbed(account.testKey, embedBody([{ fileName: 'a.png', texts: ['one'] }]))).body.data;
      const url = new URL(`${created.files[0].uploadUrl ?? ''}x`);
      const upload = request({ host: url.hostname, port: url.port, method: 'PUT', path: url.pathname, headers: { 'content-type': 'application/octet-stream' } });
      upload.on('error', () => undefined);
      const chunk = Buffer.alloc(64 * 1024, 1);
      // The body never ends: the client keeps sending until the gateway answers.
      const timer = setInterval(() => upload.write(chunk), 5);
      try {
        const [response] = (await once(upload, 'response')) as [IncomingMessage];
        const chunks: Buffer[] = [];
        for await (const part of response) {
          chunks.push(part as Buffer);
        }
        expect({ status: response.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }).toEqual({ status: 404, body: { code: 'RESOURCE_NOT_FOUND' } });
        expect(response.headers.connection).toBe('close');
        expect(upload.writableEnded).toBe(false);
      } finally {
        clearInterval(timer);
        upload.destroy();
      }
    });

    it('same lifecycle through the test-upload sink: no credits, sample downloads', async () => {
      const before = await balance(account.accountId);
      const created = (await createEmbed(account.testKey, embedBody([{ fileName: 'a.png', texts: ['one', 'two'] }]))).body.data;
      expect(created.files[0].uploadUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${layout.ports['api-gateway'][0]}/api/v2/test-uploads/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
      const tampered = `${created.files[0].uploadUrl ?? ''}x`;
      expect((await fetch(tampered, { method: 'PUT', body: 'x' })).status).toBe(404);
      expect(await uploadFiles(created, [corpusFile('photos/astronaut.png')])).toEqual([200]);
      const finished = await waitForOrder(account.testKey, created.orderId);
      expect(finished.status).toBe('complete');
      const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${created.orderId}/download`, { key: account.testKey });
      const archive = await download(link.body.data.downloadUrl);
      expect(archive.disposition).toContain('sample-watermarked.zip');
      expect((await readZip(archive.body)).size).toBe(2);
      expect(await balance(account.accountId)).toBe(before);
      expect((await api(`/api/v3/orders/${created.orderId}`, { key: account.liveKey })).status).toBe(404);
    });
  });

  describe('files given by URL', () => {
    it('get no upload URL; an unreachable URL fails the order and restores the credit', async () => {
      const own = await freshAccount(5);
      const created = (
        await createEmbed(own.liveKey, embedBody([{ fileName: 'remote.jpg', texts: ['x'], originalFileUrl: 'https://images.example.com/remote.jpg' }]))
      ).body.data;
      expect(created.files[0].uploadUrl).toBeNull();
      const failed = await waitForOrder(own.liveKey, created.orderId, ['failed'], 90_000);
      const rows = await orders.query<Array<{ failure_code: string }>>('SELECT failure_code FROM "order" WHERE id = $1', [created.orderId]);
      expect(rows[0].failure_code).toBe('WATERMARK_SOURCE_URL_FAILED');
      expect(failed.outputs[0].status).toBe('failed');
      await eventually(() => balance(own.accountId), (value) => value === 5);
    });

    it('a test key never fetches its URL: the order completes the mock lifecycle (the same unreachable URL fails a live order)', async () => {
      const created = (
        await createEmbed(account.testKey, embedBody([{ fileName: 'remote.jpg', texts: ['x'], originalFileUrl: 'https://images.example.com/remote.jpg' }]))
      ).body.data;
      expect(created.files[0].uploadUrl).toBeNull();
      const finished = await waitForOrder(account.testKey, created.orderId, ['complete', 'failed'], 90_000);
      expect({ status: finished.status, outputs: finished.outputs.map((output) => output.status) }).toEqual({ status: 'complete', outputs: ['completed'] });
    });
  });

  describe('the 12-hour upload window', () => {
    it('an order not uploaded within 12 hours fails with ORDER_TIMEOUT and gets its credits back', async () => {
      const own = await freshAccount(10);
      const created = (await createEmbed(own.liveKey, embedBody([{ fileName: 'late.png', texts: ['a', 'b', 'c'] }]))).body.data;
      await eventually(() => balance(own.accountId), (value) => value === 7);
      setClockOffset(11 * 3600_000);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect((await getOrder(own.liveKey, created.orderId)).status).toBe('pending');
      setClockOffset(12 * 3600_000 + 60_000);
      const failed = await waitForOrder(own.liveKey, created.orderId, ['failed'], 30_000);
      setClockOffset(0);
      expect(failed.files[0].uploadUrl).toBeNull();
      const rows = await orders.query<Array<{ failure_code: string }>>('SELECT failure_code FROM "order" WHERE id = $1', [created.orderId]);
      expect(rows[0].failure_code).toBe('ORDER_TIMEOUT');
      await eventually(() => balance(own.accountId), (value) => value === 10);
    });

    it('an order failed before all its files were in takes no more files, and the input it had is deleted at once', async () => {
      const storage = new ObjectStorage(
        toStorageConfig(validateEnv(StorageEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/x', S3_ENDPOINT: `http://127.0.0.1:${layout.s3Port}` })),
      );
      const put = async (url: string | null, body: Buffer): Promise<number> => {
        const response = await fetch(url ?? '', { method: 'PUT', body: new Uint8Array(body) });
        await response.arrayBuffer();
        return response.status;
      };
      const own = await freshAccount(10);
      const created = (await createEmbed(own.liveKey, embedBody([{ fileName: 'in.png', texts: ['a'] }, { fileName: 'never.png', texts: ['b'] }]))).body.data;
      const [uploaded, missing] = created.files;
      const keyOf = (file: WatermarkOrderView['files'][number], fileName: string) => ObjectKeys.input(own.accountId, created.orderId, file.fileId, fileName);
      expect(await put(uploaded.uploadUrl, corpusFile('photos/coffee.png'))).toBe(200);
      const fileStatus = async () => (await orders.query<Array<{ status: string }>>('SELECT status FROM order_file WHERE id = $1', [uploaded.fileId]))[0]?.status;
      await eventually(fileStatus, (status) => status === 'uploaded');
      expect(await storage.stat(storage.buckets.inputs, keyOf(uploaded, 'in.png'))).not.toBeNull();

      setClockOffset(12 * 3600_000 + 60_000);
      await waitForOrder(own.liveKey, created.orderId, ['failed'], 30_000);
      setClockOffset(0);
      expect(await eventually(() => storage.stat(storage.buckets.inputs, keyOf(uploaded, 'in.png')), (info) => info === null)).toBeNull();
      // The v2 detail hands out no link to the deleted input.
      const detail = (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: own.liveKey })).body.data;
      expect([detail.status, detail.thumbnailImageUrl]).toEqual(['failed', null]);

      // Both URLs are still valid for their 900 s: whatever is PUT there now is deleted as it arrives.
      expect(await put(missing.uploadUrl, corpusFile('photos/coffee.png'))).toBe(200);
      expect(await put(uploaded.uploadUrl, corpusFile('photos/coffee.png'))).toBe(200);
      expect(await eventually(() => storage.stat(storage.buckets.inputs, keyOf(missing, 'never.png')), (info) => info === null)).toBeNull();
      expect(await eventually(() => storage.stat(storage.buckets.inputs, keyOf(uploaded, 'in.png')), (info) => info === null)).toBeNull();
      await eventually(() => balance(own.accountId), (value) => value === 10);
    });
  });

  describe('credits', () => {
    it('an order needing more credits than the balance is refused with USAGE_LIMIT_EXCEEDED and creates nothing', async () => {
      const poor = await createAccount(gateway, 'free', 1);
      await eventually(() => balance(poor.accountId), (value) => value === 1);
      const response = await createEmbed(poor.liveKey, embedBody([{ fileName: 'a.png', texts: ['a', 'b'] }]));
      expect(response.status).toBe(402);
      expect(response.body).toEqual({ code: 'USAGE_LIMIT_EXCEEDED' });
      const rows = await orders.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM "order" WHERE account_id = $1', [poor.accountId]);
      expect(rows[0].n).toBe(0);
      expect(await balance(poor.accountId)).toBe(1);
    });

    it('the ledger sums to the balance for every account', async () => {
      const rows = await orders.query<Array<{ balance: number; ledger: number }>>(
        `SELECT b.balance, COALESCE(SUM(l.amount), 0)::int AS ledger FROM credit_balance b
           LEFT JOIN credit_ledger_entry l ON l.account_id = b.account_id GROUP BY b.account_id, b.balance`,
      );
      expect(rows.length).toBeGreaterThan(1);
      rows.forEach((row) => expect(row.ledger).toBe(row.balance));
    });
  });
});

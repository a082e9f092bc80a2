// v3 watermark extract orders over HTTP against all services (issue 5).
import { WatermarkOrderView } from '@cp/contracts';
import { embedImage } from '@cp/watermark';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, download, embedBody, uploadFiles, waitForOrder } from './support/orders';
import { readZip } from '@cp/testing';

const SECRET = layout.extraEnv?.WATERMARK_SECRET ?? '';

function extractBody(inspected: string, original: string, idempotencyKey: string = randomUUID()): Record<string, unknown> {
  return { idempotencyKey, file: { fileName: inspected, originalFile: { fileName: original } } };
}

describe('v3 watermark extract orders', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let owner: TestAccount;
  let stranger: TestAccount;
  const original = corpusFile('photos/astronaut.png');
  const marked = new Map<string, Buffer>();

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  async function extract(account: TestAccount, inspected: Buffer, inspectedName: string, originalName = 'astronaut.png', originalBytes = original): Promise<WatermarkOrderView> {
    const response = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', {
      key: account.liveKey,
      method: 'POST',
      body: extractBody(inspectedName, originalName),
    });
    expect(response.status).toBe(200);
    const created = response.body.data;
    expect(created.outputs).toEqual([]);
    expect(created.result).toBeNull();
    expect(await uploadFiles(created, [originalBytes, inspected])).toEqual([200, 200]);
    return waitForOrder(account.liveKey, created.orderId, ['complete', 'failed'], 120_000);
  }

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    owner = await createAccount(gateway, 'enterprise', 100);
    stranger = await createAccount(gateway, 'enterprise', 100);
    await eventually(() => balance(stranger.accountId), (value) => value === 100);
    const embed = (await createEmbed(owner.liveKey, embedBody([{ fileName: 'astronaut.png', texts: ['leak: alice', 'leak: bob'] }]))).body.data;
    await uploadFiles(embed, [original]);
    expect((await waitForOrder(owner.liveKey, embed.orderId)).status).toBe('complete');
    const link = await api<{ data: { downloadUrl: string } }>(`/api/v3/orders/${embed.orderId}/download`, { key: owner.liveKey });
    const entries = await readZip((await download(link.body.data.downloadUrl)).body);
    for (const [index, text] of ['leak: alice', 'leak: bob'].entries()) {
      marked.set(text, entries.get(`astronaut-watermarked-${embed.files[0].fileId}-${index + 1}.png`) ?? Buffer.alloc(0));
    }
  });

  afterAll(async () => {
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  it('creates the order with the original first and the file to inspect second, charging 1 credit', async () => {
    const account = await createAccount(gateway, 'pro', 3);
    await eventually(() => balance(account.accountId), (value) => value === 3);
    const response = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: account.liveKey, method: 'POST', body: extractBody('found.jpg', 'mine.png') });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ status: 'pending', processingDelayed: false, outputs: [], result: null, reports: [] });
    expect(response.body.data.files).toHaveLength(2);
    expect(response.body.data.files[0].uploadUrl).toContain('/mine.png?');
    expect(response.body.data.files[1].uploadUrl).toContain('/found.jpg?');
    expect(response.body.data.expiresAt).toBeTruthy();
    await eventually(() => balance(account.accountId), (value) => value === 2);
  });

  it.each([
    ['JPEG re-encode at quality 75', (image: Buffer) => sharp(image).jpeg({ quality: 75 }).toBuffer(), 'leaked.jpg'],
    ['resize to 60%', (image: Buffer) => sharp(image).resize(307, 307).png().toBuffer(), 'leaked.png'],
    ['crop to the middle 70%', (image: Buffer) => sharp(image).extract({ left: 77, top: 77, width: 358, height: 358 }).jpeg({ quality: 90 }).toBuffer(), 'leaked.jpeg'],
  ])('names the right recipient after %s', async (_edit, edit, name) => {
    for (const [text, image] of marked) {
      const finished = await extract(owner, await edit(image), name);
      expect(finished.status).toBe('complete');
      expect(finished.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: text });
    }
  });

  it('the unmarked original itself is not_detected', async () => {
    const finished = await extract(owner, original, 'original-again.png');
    expect(finished.result).toEqual({ detectionStatus: 'not_detected', reportSupported: true, watermarkText: null });
  });

  it("another account finds the mark but not the text", async () => {
    const finished = await extract(stranger, marked.get('leak: alice') ?? Buffer.alloc(0), 'seen-elsewhere.png');
    expect(finished.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: null });
  });

  it('a mark of the retired v2 algorithm is never detected by v3', async () => {
    const v2 = await embedImage(original, 12345n, { key: { secret: SECRET, version: 'v2' } });
    const finished = await extract(owner, v2.data, 'v2-marked.png');
    expect(finished.result?.detectionStatus).toBe('not_detected');
  });

  it.each([
    ['formats/tif-16bit-rgb.tif', 'variant.tif'],
    ['formats/tif-multipage.tif', 'variant.tiff'],
    ['formats/bmp-rle-compressed.bmp', 'variant.bmp'],
    ['broken/truncated.jpg', 'variant.jpg'],
  ])('%s ends complete with unsupported and the credit refunded', async (corpus, name) => {
    const account = await createAccount(gateway, 'pro', 2);
    await eventually(() => balance(account.accountId), (value) => value === 2);
    const finished = await extract(account, corpusFile(corpus), name);
    expect(finished.status).toBe('complete');
    expect(finished.result).toEqual({ detectionStatus: 'unsupported', reportSupported: false, watermarkText: null });
    await eventually(() => balance(account.accountId), (value) => value === 2);
    const ledger = await orders.query<Array<{ amount: number; reference: string }>>(
      "SELECT amount, reference FROM credit_ledger_entry WHERE account_id = $1 AND reference NOT LIKE 'grant:%' ORDER BY id",
      [account.accountId],
    );
    expect(ledger.map((entry) => entry.amount)).toEqual([-1, 1]);
  });

  // outside review: a broken original ended as `error`; it is input that cannot be processed, like a broken copy
  it('a truncated original with a sound copy ends complete with unsupported and the credit refunded', async () => {
    const account = await createAccount(gateway, 'pro', 2);
    await eventually(() => balance(account.accountId), (value) => value === 2);
    const truncated = (await sharp(original).jpeg({ quality: 90 }).toBuffer()).subarray(0, 4000);
    const finished = await extract(account, marked.get('leak: alice') ?? Buffer.alloc(0), 'leaked.png', 'original.jpg', truncated);
    expect(finished.status).toBe('complete');
    expect(finished.result).toEqual({ detectionStatus: 'unsupported', reportSupported: false, watermarkText: null });
    await eventually(() => balance(account.accountId), (value) => value === 2);
  });

  it('publishes the completed event with statusCode and watermarkFound for webhooks', async () => {
    const finished = await extract(owner, marked.get('leak: bob') ?? Buffer.alloc(0), 'for-webhooks.png');
    const rows = await orders.query<Array<{ envelope: { data: { extract: unknown } } }>>(
      "SELECT envelope FROM outbox_event WHERE subject = 'evt.orders.order.completed' AND envelope->'data'->>'orderId' = $1",
      [finished.orderId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].envelope.data.extract).toEqual({ statusCode: 'detected', watermarkFound: true, watermarkText: 'leak: bob' });
  });

  describe('validation and idempotency', () => {
    it.each([
      ['image original, PDF inspected', extractBody('x.pdf', 'a.png')],
      ['PDF original, WebP inspected', extractBody('x.webp', 'a.pdf')],
      ['PDF original, TIFF inspected', extractBody('x.tif', 'a.pdf')],
      ['original extension not allowed', extractBody('x.png', 'a.gif')],
      ['no original', { idempotencyKey: 'k', file: { fileName: 'x.png' } }],
      ['no file', { idempotencyKey: 'k' }],
      ['no idempotencyKey', { file: { fileName: 'x.png', originalFile: { fileName: 'a.png' } } }],
    ])('%s → 400 VALIDATION_FAILED', async (_name, body) => {
      const response = await api('/api/v3/orders/wtr-extract', { key: owner.liveKey, method: 'POST', body });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: 'VALIDATION_FAILED' });
    });

    it('accepts PDF, PNG and JPEG files to inspect against a PDF original', async () => {
      for (const name of ['x.pdf', 'x.png', 'x.jpeg', 'x.jpg']) {
        const response = await api('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody(name, 'a.pdf') });
        expect({ name, status: response.status }).toEqual({ name, status: 200 });
      }
    });

    it('same key + another body → 409 WATERMARK_V2_CONFLICT', async () => {
      const key = randomUUID();
      const first = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody('a.jpg', 'b.png', key) });
      const again = await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody('a.jpg', 'b.png', key) });
      expect(again.body.data.orderId).toBe(first.body.data.orderId);
      const conflict = await api('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody('c.jpg', 'b.png', key) });
      expect(conflict.status).toBe(409);
      expect(conflict.body).toEqual({ code: 'WATERMARK_V2_CONFLICT' });
    });
  });

  describe('test keys: simulated results chosen by the file name, no credit', () => {
    it.each([
      ['leak-detected.jpg', 'a.png', { detectionStatus: 'detected', reportSupported: true, watermarkText: 'sample watermark text' }],
      ['leak-not-detected.jpg', 'a.png', { detectionStatus: 'not_detected', reportSupported: true, watermarkText: null }],
      ['scan-inconclusive.png', 'a.png', { detectionStatus: 'inconclusive', reportSupported: true, watermarkText: null }],
      ['odd-unsupported.tif', 'a.png', { detectionStatus: 'unsupported', reportSupported: false, watermarkText: null }],
      ['bad-error.webp', 'a.png', { detectionStatus: 'error', reportSupported: false, watermarkText: null }],
      ['screenshot-detected.png', 'doc.pdf', { detectionStatus: 'detected', reportSupported: false, watermarkText: 'sample watermark text' }],
    ])('%s against %s', async (inspected, originalName, expected) => {
      const before = await balance(owner.accountId);
      const created = (await api<{ data: WatermarkOrderView }>('/api/v3/orders/wtr-extract', { key: owner.testKey, method: 'POST', body: extractBody(inspected, originalName) })).body.data;
      expect(created.files.every((file) => file.uploadUrl?.includes('/api/v2/test-uploads/'))).toBe(true);
      await uploadFiles(created, [Buffer.from('original bytes'), Buffer.from('inspected bytes')]);
      const finished = await waitForOrder(owner.testKey, created.orderId);
      expect(finished.status).toBe('complete');
      expect(finished.result).toEqual(expected);
      expect(await balance(owner.accountId)).toBe(before);
    });
  });
});

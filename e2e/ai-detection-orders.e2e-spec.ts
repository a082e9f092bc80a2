// AI detection orders over HTTP against all services (issue 14): create, upload, confirm (spec 4.15),
// the analysis by the ai-detector, v3 and v2 reads, the webhook, test keys and the refusals.
import { AiDetectionOrderCreatedView, V2OrderDetailView } from '@cp/contracts';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, getOrder, waitForOrder } from './support/orders';
import { WebhookReceiver } from './support/webhook-receiver';

const create = (key: string, body: unknown) => api<{ data: AiDetectionOrderCreatedView }>('/api/v2/orders/ai-detection', { key, method: 'POST', body });
const confirm = (key: string, orderId: string, idempotencyKey: string = randomUUID()) =>
  api<{ data: { orderId: string; status: string } }>('/api/v2/orders/ai-detection/confirm', { key, method: 'POST', body: { idempotencyKey, orderId } });

async function put(url: string | null | undefined, bytes: Buffer): Promise<number> {
  const response = await fetch(url ?? '', { method: 'PUT', body: new Uint8Array(bytes) });
  await response.arrayBuffer();
  return response.status;
}

describe('AI detection orders', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  const photo = corpusFile('photos/camera.png');

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'enterprise', 20);
    await eventually(() => balance(account.accountId), (value) => value === 20);
    receiver = await WebhookReceiver.start();
    expect((await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: 'ai', url: receiver.url() } })).status).toBe(201);
  });

  afterAll(async () => {
    await receiver.stop();
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  describe('one uploaded photo, heatmap asked', () => {
    let created: AiDetectionOrderCreatedView;
    let confirmKey: string;

    it('creates a pending order with an upload URL, 1 credit per image', async () => {
      const response = await create(account.liveKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'camera.png' }], options: { generateHeatmap: true } });
      expect(response.status).toBe(200);
      created = response.body.data;
      expect(created.status).toBe('pending');
      expect(created.files[0]).toMatchObject({ fileName: 'camera.png', fileFormat: 'PNG' });
      await eventually(() => balance(account.accountId), (value) => value === 19);
    });

    it('does not start by itself once uploaded: only the confirm starts it', async () => {
      expect(await put(created.files[0].uploadUrl, photo)).toBe(200);
      await eventually(() => getOrder(account.liveKey, created.orderId), (order) => order.files[0].uploadUrl === null);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await getOrder(account.liveKey, created.orderId)).status).toBe('pending');
      confirmKey = randomUUID();
      const started = await confirm(account.liveKey, created.orderId, confirmKey);
      expect([started.status, started.body.data]).toEqual([200, { orderId: created.orderId, status: 'inProgress' }]);
    });

    it('completes with an honest result: no evidence in a plain photo keeps it in the uncertain band', async () => {
      const done = await waitForOrder(account.liveKey, created.orderId, ['complete', 'failed'], 120_000);
      expect(done.status).toBe('complete');
      const detection = done.detection;
      expect(detection?.files).toHaveLength(1);
      expect(detection?.probability).toBeGreaterThanOrEqual(0.25);
      expect(detection?.probability).toBeLessThan(0.75);
      expect(detection?.options).toEqual({ generateHeatmap: true, generateOverlay: false });
      expect(detection?.files[0].noEvidence).toBe(true);
      expect(detection?.category).toBe((detection?.probability ?? 0) < 0.5 ? 'uncertain_real' : 'uncertain_ai');
    });

    it('a repeated confirm returns the current state without reprocessing; another body with its key is 409', async () => {
      const again = await confirm(account.liveKey, created.orderId, confirmKey);
      expect(again.body.data).toEqual({ orderId: created.orderId, status: 'complete' });
      const other = await create(account.liveKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'x.png' }] });
      expect((await confirm(account.liveKey, other.body.data.orderId, confirmKey)).status).toBe(409);
    });

    it('the v2 detail has type aiDetection, statusCode from the probability, the options; the webhook carries the probability', async () => {
      const detail = await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: account.liveKey });
      expect(detail.body.data).toMatchObject({ type: 'aiDetection', status: 'complete', aiDetectionOptions: { generateHeatmap: true, generateOverlay: false } });
      expect(['uncertain_real', 'uncertain_ai']).toContain(detail.body.data.statusCode);
      const hook = await eventually(
        () => Promise.resolve(receiver.received.map((request) => JSON.parse(request.rawBody.toString('utf8')) as { eventType: string; data: Record<string, unknown> })),
        (bodies) => bodies.some((body) => body.eventType === 'order.aiDetection.completed' && body.data.orderId === created.orderId),
      );
      const completed = hook.find((body) => body.eventType === 'order.aiDetection.completed' && body.data.orderId === created.orderId);
      expect(completed?.data).toMatchObject({ probability: detail.body.data.aiProbability, heatmapUrl: null, overlayUrl: null });
    });

    it('has no result file to download', async () => {
      const response = await api(`/api/v3/orders/${created.orderId}/download`, { key: account.liveKey });
      expect([response.status, response.body]).toEqual([400, { code: 'VALIDATION_FAILED' }]);
    });
  });

  it('confirm of an unknown or foreign order is RESOURCE_NOT_FOUND; bad bodies are VALIDATION_FAILED', async () => {
    const other = await createAccount(gateway, 'enterprise', 5);
    const foreign = await create(account.liveKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'a.jpg' }] });
    expect((await confirm(other.liveKey, foreign.body.data.orderId)).status).toBe(404);
    expect((await confirm(account.liveKey, '99999999999')).body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
    for (const body of [{ files: [{ fileName: 'doc.pdf' }] }, { files: [] }, { files: [{ fileName: 'a.jpg' }], options: { generateHeatmap: 'yes' } }]) {
      expect((await create(account.liveKey, { idempotencyKey: randomUUID(), ...body })).status).toBe(400);
    }
    expect((await api('/api/v2/orders/ai-detection/confirm', { key: account.liveKey, method: 'POST', body: { idempotencyKey: 'k', orderId: 'abc' } })).status).toBe(400);
  });

  it('test keys, confirmed before the upload: recorded, started by the upload, simulated, no credits', async () => {
    const before = await balance(account.accountId);
    const created = await create(account.testKey, { idempotencyKey: randomUUID(), files: [{ fileName: 'camera.png' }] });
    const early = await confirm(account.testKey, created.body.data.orderId);
    expect([early.status, early.body.data.status]).toEqual([200, 'pending']);
    expect(await put(created.body.data.files[0].uploadUrl, photo)).toBe(200);
    const done = await waitForOrder(account.testKey, created.body.data.orderId);
    expect(done.detection?.files[0]).toMatchObject({ probability: 0.5, noEvidence: true });
    expect(done.detection?.files[0].statement).toContain('Simulated');
    expect(await balance(account.accountId)).toBe(before);
  });
});

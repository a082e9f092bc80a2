// One trace per order (issue 33): the services export their spans over OTLP/HTTP to a receiver this test starts
// (the e2e stack points OTEL_EXPORTER_OTLP_ENDPOINT at it). An embed, an extract and an AI-detection order each
// give a single trace whose spans run from the gateway's request through orders, uploads and the worker to
// webhooks, every span's parent in the same trace and started before it.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { otlpReceiverPort } from './setup/e2e-layout';
import { api, createAccount, eventually, openSchema, TestAccount } from './support/e2e-stack';
import { OtlpReceiver, ReceivedSpan } from './support/otlp-receiver';
import { corpusFile, createEmbed, embedBody, getOrder, uploadFiles, waitForOrder } from './support/orders';
import { WebhookReceiver } from './support/webhook-receiver';

/** The chain of spans from `span` up to its trace's root (the root last). */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((candidate) => [candidate.spanId, candidate]));
  const chain = [span];
  for (let current = span; current.parentSpanId !== undefined; ) {
    const parent = byId.get(current.parentSpanId);
    if (!parent) {
      break;
    }
    chain.push(parent);
    current = parent;
  }
  return chain;
}

describe('tracing: one trace per order', () => {
  let receiver: OtlpReceiver;
  let hooks: WebhookReceiver;
  let gateway: DataSource;
  let account: TestAccount;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start(otlpReceiverPort());
    gateway = await openSchema('gateway');
    account = await createAccount(gateway, 'enterprise', 20);
    hooks = await WebhookReceiver.start();
    expect((await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: 'traces', url: hooks.url() } })).status).toBe(201);
  });

  afterAll(async () => {
    await Promise.all([receiver.stop(), hooks.stop(), gateway.destroy()]);
  });

  /**
   * Waits until the order's outcome reaches the webhooks service (its consumer of the order's last event), then
   * checks the order's trace: every span that names the order in one trace, rooted in the gateway's HTTP request,
   * the five services in it, and the webhooks span's ancestry running through them in causal order.
   */
  async function expectOneTrace(orderId: string, worker: string, chainServices: string[][]): Promise<void> {
    const lastWebhookSpan = (): ReceivedSpan | undefined => {
      const traceIds = new Set(receiver.ofOrder(orderId).map((span) => span.traceId));
      const candidates = [...traceIds].flatMap((traceId) => receiver.trace(traceId)).filter((span) => span.service === 'webhooks' && span.name.startsWith('consume'));
      return candidates.sort((a, b) => (a.startNs < b.startNs ? -1 : 1)).at(-1);
    };
    // The order's completion event, consumed by webhooks, after which its delivery went out.
    await eventually(async () => hooks.received.filter((request) => request.rawBody.toString('utf8').includes(orderId)).length, (count) => count > 0, 30_000);
    // Each service exports on its own schedule: wait until the chain reaches the worker and the gateway's request.
    const webhookSpan = await eventually(
      async () => lastWebhookSpan(),
      (span) => {
        const chain = span === undefined ? [] : ancestry(receiver.trace(span.traceId), span);
        return chain.some((parent) => parent.service === worker) && chain.at(-1)?.service === 'api-gateway';
      },
      30_000,
    );
    expect(receiver.rejected).toEqual([]);
    expect(new Set(receiver.ofOrder(orderId).map((span) => span.traceId)).size).toBe(1);
    const spans = receiver.trace(webhookSpan!.traceId);
    const chain = ancestry(spans, webhookSpan!).reverse();
    expect(chain[0]).toMatchObject({ service: 'api-gateway', parentSpanId: undefined, name: expect.stringMatching(/^HTTP POST /) as unknown });
    // Causal order: each span of the chain starts no earlier than its parent.
    chain.slice(1).forEach((span, index) => expect(span.startNs >= chain[index].startNs).toBe(true));
    // The services in the order the order went through them (first appearance along the chain).
    expect(chainServices).toContainEqual(chain.map((span) => span.service).filter((service, index, all) => all.indexOf(service) === index));
    // (Reports and retention consume the order's events too, in the same trace.)
    expect([...new Set(spans.map((span) => span.service))]).toEqual(expect.arrayContaining(['api-gateway', 'orders', 'uploads', worker, 'webhooks']));
    // Every span of the trace hangs in it (no orphan), and the engine's work is one of them.
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.filter((span) => span.parentSpanId !== undefined && !ids.has(span.parentSpanId))).toEqual([]);
    expect(spans.some((span) => span.service === worker && span.name.startsWith('engine '))).toBe(true);
    // The webhook's delivery, claimed later by the dispatcher from its table, continues the same trace.
    const delivery = await eventually(
      async () => receiver.trace(webhookSpan!.traceId).find((span) => span.name === 'webhook deliver' && span.attributes['cp.order.id'] === orderId),
      (span) => span !== undefined,
      30_000,
    );
    expect(ancestry(receiver.trace(webhookSpan!.traceId), delivery!).at(-1)).toBe(chain[0]);
    // What the spans say about the order: its account, never a key.
    expect(spans.filter((span) => span.attributes['cp.account.id'] !== undefined).every((span) => span.attributes['cp.account.id'] === account.accountId)).toBe(true);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(account.liveKey);
  }

  it('an embed order', async () => {
    const created = await createEmbed(account.liveKey, embedBody([{ fileName: 'rocket.jpg', texts: ['trace'] }]));
    expect(created.status).toBe(200);
    const orderId = created.body.data.orderId;
    expect(await uploadFiles(created.body.data, [corpusFile('photos/rocket.jpg')])).toEqual([200]);
    expect((await waitForOrder(account.liveKey, orderId)).status).toBe('complete');
    await expectOneTrace(orderId, 'watermark-processor', [['api-gateway', 'orders', 'uploads', 'watermark-processor', 'webhooks']]);
    const creation = receiver.ofOrder(orderId).find((span) => span.service === 'orders' && span.attributes['cp.order.type'] !== undefined);
    expect(creation?.attributes).toMatchObject({ 'cp.order.type': 'watermarkEmbed', 'cp.account.id': account.accountId });
  }, 120_000);

  it('an extract order', async () => {
    const response = await api<{ data: { orderId: string } & Parameters<typeof uploadFiles>[0] }>('/api/v3/orders/wtr-extract', {
      key: account.liveKey,
      method: 'POST',
      body: { idempotencyKey: randomUUID(), file: { fileName: 'inspected.png', originalFile: { fileName: 'astronaut.png' } } },
    });
    expect(response.status).toBe(200);
    const photo = corpusFile('photos/astronaut.png');
    expect(await uploadFiles(response.body.data, [photo, photo])).toEqual([200, 200]);
    expect((await waitForOrder(account.liveKey, response.body.data.orderId, ['complete', 'failed'], 120_000)).status).toBe('complete');
    await expectOneTrace(response.body.data.orderId, 'watermark-processor', [['api-gateway', 'orders', 'uploads', 'watermark-processor', 'webhooks']]);
  }, 150_000);

  it('an AI-detection order (created, uploaded, then confirmed: the confirmation continues the trace of the creation)', async () => {
    const created = await api<{ data: { orderId: string; files: Array<{ uploadUrl: string | null }> } }>('/api/v2/orders/ai-detection', {
      key: account.liveKey,
      method: 'POST',
      body: { idempotencyKey: randomUUID(), files: [{ fileName: 'camera.png' }] },
    });
    expect(created.status).toBe(200);
    const { orderId, files } = created.body.data;
    const put = await fetch(files[0].uploadUrl ?? '', { method: 'PUT', body: new Uint8Array(corpusFile('photos/camera.png')) });
    expect(put.status).toBe(200);
    await eventually(() => getOrder(account.liveKey, orderId), (order) => order.files[0].uploadUrl === null);
    const confirmed = await api('/api/v2/orders/ai-detection/confirm', { key: account.liveKey, method: 'POST', body: { idempotencyKey: randomUUID(), orderId } });
    expect(confirmed.status).toBe(200);
    expect((await waitForOrder(account.liveKey, orderId, ['complete', 'failed'], 120_000)).status).toBe('complete');
    // The analysis starts in the confirmation, which continues the creation's trace (its own request is linked),
    // or, when orders had not yet seen the upload then, in the upload's handling: either way one causal chain.
    await expectOneTrace(orderId, 'ai-detector', [
      ['api-gateway', 'orders', 'ai-detector', 'webhooks'],
      ['api-gateway', 'orders', 'uploads', 'ai-detector', 'webhooks'],
    ]);
  }, 150_000);
});

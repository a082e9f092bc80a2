// An order's timeline (issue 33) for a real live embed order whose webhook was retried: the orders service's
// internal route and the admin CLI gather every service's steps through their own RPCs.
import { OrderTimelineView } from '@cp/contracts';
import { ROOT } from '@cp/stack';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, embedBody, uploadFiles, waitForOrder } from './support/orders';
import { WebhookReceiver } from './support/webhook-receiver';

describe('order timeline', () => {
  let gateway: DataSource;
  let receiver: WebhookReceiver;
  let account: TestAccount;
  let orderId: string;
  const ordersUrl = `http://127.0.0.1:${layout.ports.orders[0]}`;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    account = await createAccount(gateway, 'pro', 10);
    // The first delivery attempt fails: the order's webhook is retried (immediately, after 1 s).
    receiver = await WebhookReceiver.start((attempt) => (attempt === 1 ? 503 : 200));
    const webhook = await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: 'timeline', url: receiver.url() } });
    expect(webhook.status).toBe(201);
    const created = await createEmbed(account.liveKey, embedBody([{ fileName: 'rocket.jpg', texts: ['alice', 'bob'] }]));
    expect(created.status).toBe(200);
    orderId = created.body.data.orderId;
    expect(await uploadFiles(created.body.data, [corpusFile('photos/rocket.jpg')])).toEqual([200]);
    expect((await waitForOrder(account.liveKey, orderId)).status).toBe('complete');
    await eventually(
      async () => receiver.received.filter((request) => request.rawBody.toString('utf8').includes(orderId)).length,
      (count) => count >= 2,
    );
  }, 120_000);

  afterAll(async () => {
    await receiver.stop();
    await gateway.destroy();
  });

  const timeline = async (): Promise<OrderTimelineView> => {
    const response = await fetch(`${ordersUrl}/internal/orders/${orderId}/timeline`);
    expect(response.status).toBe(200);
    return (await response.json()) as OrderTimelineView;
  };

  it('the internal route tells every step the services recorded, in time order: creation, upload, jobs with durations, the webhook retry', async () => {
    // The webhook's second attempt is recorded once its answer is in.
    const view = await eventually(timeline, (candidate) => candidate.steps.some((step) => step.service === 'webhooks' && /after 2 attempts/.test(step.step)));
    expect(view.orderId).toBe(orderId);
    expect(view.unavailable).toEqual([]);
    const times = view.steps.map((step) => step.at);
    expect(times).toEqual([...times].sort());
    const find = (service: string, pattern: RegExp) => view.steps.filter((step) => step.service === service && pattern.test(step.step));
    expect(view.steps[0]).toMatchObject({ service: 'orders', step: expect.stringMatching(/^order created \(watermarkEmbed, live key, API v3\), 2 credit\(s\)$/) as unknown });
    expect(find('orders', /^credits -2$/)).toHaveLength(1);
    expect(find('uploads', /^file \S+ uploaded$/)).toHaveLength(1);
    // The processor's embed job: one attempt per output, each with its duration.
    const embeds = find('watermark-processor', /^watermark-embed attempt 1: ok$/);
    expect(embeds).toHaveLength(2);
    expect(embeds.every((step) => typeof step.durationMs === 'number' && step.durationMs > 0)).toBe(true);
    // Orders' own consumers handled the upload and the results.
    expect(find('orders', /attempt 1: ok$/).length).toBeGreaterThanOrEqual(3);
    expect(find('orders', /^order complete \(last transition\)$/)).toEqual([expect.objectContaining({ detail: 'outputs: 2 completed' })]);
    const [retried] = find('webhooks', /after 2 attempts/);
    expect(retried.step).toMatch(/^webhook \S+ to endpoint \d+: \S+ after 2 attempts$/);
    expect(retried.detail).toMatch(/^last answer 200 at /);
    // Never a watermark text.
    expect(JSON.stringify(view)).not.toMatch(/alice|bob/);
  });

  it('an unknown order is 404 with a code, a malformed id 400, and the public gateway does not serve the route', async () => {
    const unknown = await fetch(`${ordersUrl}/internal/orders/99999999999999/timeline`);
    expect({ status: unknown.status, body: (await unknown.json()) as unknown }).toEqual({ status: 404, body: { code: 'RESOURCE_NOT_FOUND' } });
    const huge = await fetch(`${ordersUrl}/internal/orders/99999999999999999999/timeline`);
    expect(huge.status).toBe(404);
    const malformed = await fetch(`${ordersUrl}/internal/orders/12a/timeline`);
    expect({ status: malformed.status, body: (await malformed.json()) as unknown }).toEqual({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    const onGateway = await api(`/internal/orders/${orderId}/timeline`, { key: account.liveKey });
    expect(onGateway.status).toBe(404);
  });

  it('npm run admin -- order timeline <orderId> prints the same steps, one a line', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['-r', path.join(ROOT, 'tools/register.js'), path.join(ROOT, 'tools/admin/admin.ts'), 'order', 'timeline', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NATS_URL: layout.natsUrl },
        timeout: 60_000,
      });
    const printed = run([orderId]);
    expect(printed.stderr).toBe('');
    expect(printed.status).toBe(0);
    console.log(printed.stdout);
    const lines = printed.stdout.trim().split('\n');
    expect(lines[0]).toBe(`order ${orderId}`);
    expect(lines[1]).toMatch(/^\S+Z\torders\torder created \(watermarkEmbed/);
    expect(lines.some((line) => /\twatermark-processor\twatermark-embed attempt 1: ok\t\d+ ms\t/.test(line))).toBe(true);
    expect(lines.some((line) => /\twebhooks\twebhook .* after 2 attempts\t\tlast answer 200/.test(line))).toBe(true);
    const missing = run(['99999999999999']);
    expect({ status: missing.status, stderr: missing.stderr }).toEqual({ status: 3, stderr: 'admin: order 99999999999999 not found\n' });
  });
});

// Webhooks end to end: management over the gateway, order events published on the stack's JetStream (as
// the orders service will), deliveries to a real receiver on localhost, retries with a moved clock, a
// killed service, manual and range retries, and the failure e-mail.
import { EventEnvelope, EventSubjects, OrderCompletedEvent, OrderFailedEvent, WebhookEventPageView } from '@cp/contracts';
import { connect, NatsConnection } from 'nats';
import { natsServers } from '@cp/messaging';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { metricsPortOf } from '@cp/stack';
import { accountsRepository, api, createAccount, eventually, layout, openSchema, setClockOffset, stack, TestAccount } from './support/e2e-stack';
import { ReceivedRequest, WebhookReceiver } from './support/webhook-receiver';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Typed as unknown so the matcher's `any` does not spread into the expected objects.
const anyString: unknown = expect.any(String);

interface CreatedWebhook {
  id: number;
  name: string;
  secret: string;
}

interface WebhookBody {
  eventId: string;
  eventType: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

describe('webhooks', () => {
  let gateway: DataSource;
  let webhooksDb: DataSource;
  let nats: NatsConnection;
  const receivers: WebhookReceiver[] = [];
  const mailDir = layout.extraEnv?.MAIL_OUTBOX_DIR ?? path.join('tmp', layout.name, 'mail');

  const receiver = async (behaviour?: Parameters<typeof WebhookReceiver.start>[0]): Promise<WebhookReceiver> => {
    const started = await WebhookReceiver.start(behaviour);
    receivers.push(started);
    return started;
  };

  const createWebhook = async (key: string, url: string, name = 'orders'): Promise<CreatedWebhook> => {
    const response = await api<{ data: CreatedWebhook }>('/api/v2/orders/webhooks', { key, method: 'POST', body: { name, url } });
    expect(response.status).toBe(201);
    return response.body.data;
  };

  const accountWithOwner = async (): Promise<TestAccount & { email: string }> => {
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    const accounts = accountsRepository(gateway);
    const { account } = await accounts.createAccount(`wh-${randomUUID().slice(0, 8)}`, 'pro', email, 0);
    const live = await accounts.issueKey(account.id, 'live');
    const test = await accounts.issueKey(account.id, 'test');
    // The webhooks service learns the owner's address from evt.gateway.account.created.
    await eventually(
      () => webhooksDb.query<Array<{ owner_email: string }>>('SELECT owner_email FROM account_contact WHERE account_id = $1', [account.id]),
      (rows) => rows[0]?.owner_email === email,
    );
    return { accountId: account.id, liveKey: live.key, testKey: test.key, liveKeyId: live.id, email };
  };

  const publish = async (subject: string, data: OrderCompletedEvent | OrderFailedEvent): Promise<string> => {
    const eventId = randomUUID();
    const envelope: EventEnvelope<typeof data> = { eventId, subject, occurredAt: new Date().toISOString(), data };
    await nats.jetstream().publish(subject, JSON.stringify(envelope), { msgID: eventId });
    return eventId;
  };

  let orderSeq = 1000;
  const orderBase = (accountId: string, mode: 'live' | 'test' = 'live') => {
    orderSeq += 1;
    return {
      orderId: String(Date.now() * 10 + (orderSeq % 10)),
      accountId,
      mode,
      apiVersion: 'v3' as const,
      orderName: `order-${orderSeq}`,
      createdAt: new Date(Date.now() - MINUTE).toISOString(),
      updatedAt: new Date().toISOString(),
    };
  };

  const publishEmbedCompleted = (accountId: string, mode: 'live' | 'test' = 'live'): Promise<string> =>
    publish(EventSubjects.orderCompleted, {
      ...orderBase(accountId, mode),
      orderType: 'watermarkEmbed',
      completedAt: new Date().toISOString(),
      fileCount: 1,
      download: { bucket: 'cp-outputs', key: `${accountId}/1/out.png`, fileName: 'photo-watermarked-1-1.png' },
    });

  const publishFailed = (accountId: string): Promise<string> =>
    publish(EventSubjects.orderFailed, {
      ...orderBase(accountId),
      orderType: 'watermarkEmbed',
      failedAt: new Date().toISOString(),
      errorCode: 'PROCESSING_ERROR',
    });

  const events = async (key: string, webhookId: number, query = ''): Promise<WebhookEventPageView> => {
    const response = await api<{ data: WebhookEventPageView }>(`/api/v2/orders/webhooks/${webhookId}/events${query}`, { key });
    expect(response.status).toBe(200);
    return response.body.data;
  };

  const eventOf = async (key: string, webhookId: number, eventId: string) =>
    (await events(key, webhookId, '?limit=100')).items.find((item) => item.eventId === eventId);

  const mailsTo = (email: string): string[] =>
    existsSync(mailDir)
      ? readdirSync(mailDir)
          .map((file) => readFileSync(path.join(mailDir, file), 'utf8'))
          .filter((mail) => mail.includes(`To: ${email}`))
      : [];

  const body = (request: ReceivedRequest): WebhookBody => JSON.parse(request.rawBody.toString('utf8')) as WebhookBody;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    webhooksDb = await openSchema('webhooks');
    nats = await connect({ servers: natsServers(layout.natsUrl) });
  });

  afterAll(async () => {
    setClockOffset(0);
    await Promise.all(receivers.map((started) => started.stop()));
    await nats.drain();
    await gateway.destroy();
    await webhooksDb.destroy();
  });

  describe('management (spec 4.16)', () => {
    it('creates, reads, updates, lists and deletes, scoped to the account; the secret is shown once', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const other = await createAccount(gateway, 'pro', 0);
      const created = await api<{ data: Record<string, unknown> }>('/api/v2/orders/webhooks', {
        key: account.liveKey,
        method: 'POST',
        body: { name: 'main', url: 'https://hooks.example.com/cp' },
      });
      expect(created.status).toBe(201);
      const webhook = created.body.data;
      expect(webhook).toMatchObject({ name: 'main', url: 'https://hooks.example.com/cp', isActive: true });
      expect(Number.isInteger(webhook.id)).toBe(true);
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);

      const got = await api<{ data: Record<string, unknown> }>(`/api/v2/orders/webhooks/${String(webhook.id)}`, { key: account.liveKey });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual({ id: webhook.id, name: 'main', url: 'https://hooks.example.com/cp', isActive: true, updatedAt: anyString });

      // Not readable from a database dump either.
      const rows = await webhooksDb.query<Array<{ secret_ciphertext: string }>>('SELECT secret_ciphertext FROM webhook_endpoint WHERE id = $1', [webhook.id]);
      expect(rows[0].secret_ciphertext).not.toContain(String(webhook.secret).slice('whsec_'.length, 30));

      const updated = await api<{ data: Record<string, unknown> }>(`/api/v2/orders/webhooks/${String(webhook.id)}`, {
        key: account.liveKey,
        method: 'PUT',
        body: { name: 'renamed', url: 'https://hooks.example.com/v2' },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toEqual({ id: webhook.id, name: 'renamed', url: 'https://hooks.example.com/v2', isActive: true, updatedAt: anyString });
      expect(updated.body.data).not.toHaveProperty('secret');

      const listed = await api<{ data: Array<Record<string, unknown>> }>('/api/v2/orders/webhooks', { key: account.liveKey });
      expect(listed.body.data.map((item) => item.id)).toEqual([webhook.id]);
      expect((await api<{ data: unknown[] }>('/api/v2/orders/webhooks', { key: other.liveKey })).body.data).toEqual([]);

      for (const [method, suffix] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['GET', '/events'],
        ['POST', '/events/1/retry'],
      ] as const) {
        const response = await api(`/api/v2/orders/webhooks/${String(webhook.id)}${suffix}`, {
          key: other.liveKey,
          method,
          ...(method === 'PUT' ? { body: { name: 'x', url: 'https://example.com/' } } : {}),
        });
        expect({ method, suffix, status: response.status, body: response.body }).toEqual({ method, suffix, status: 404, body: { code: 'RESOURCE_NOT_FOUND' } });
      }

      const deleted = await api(`/api/v2/orders/webhooks/${String(webhook.id)}`, { key: account.liveKey, method: 'DELETE' });
      expect(deleted.status).toBe(200);
      expect((await api(`/api/v2/orders/webhooks/${String(webhook.id)}`, { key: account.liveKey })).status).toBe(404);
    });

    it('refuses invalid bodies and URLs with 400 VALIDATION_FAILED, unknown ids with 404', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      for (const invalid of [
        {},
        { name: 'x' },
        { name: '', url: 'https://example.com/' },
        // outside review: white space only was 201 and stored as ""; the contract trims before it validates now
        { name: '   ', url: 'https://example.com/' },
        { name: 'x', url: '   ' },
        { name: 'x', url: 'ftp://example.com/' },
        { name: 'x', url: 'not a url' },
        { name: 'x', url: 'https://169.254.169.254/latest/meta-data' },
        { name: 'x', url: 'http://10.0.0.8/hook' },
        { name: 'x', url: 'https://localhost/hook' },
        { name: 'x', url: 'https://example.com/', extra: true },
      ]) {
        const response = await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: invalid });
        expect({ invalid, status: response.status, body: response.body }).toEqual({ invalid, status: 400, body: { code: 'VALIDATION_FAILED' } });
      }
      for (const id of ['999999', 'abc', '0', '99999999999999']) {
        const response = await api(`/api/v2/orders/webhooks/${id}`, { key: account.liveKey });
        expect({ id, status: response.status, body: response.body }).toEqual({ id, status: 404, body: { code: 'RESOURCE_NOT_FOUND' } });
      }
      const webhook = await createWebhook(account.liveKey, 'https://hooks.example.com/x');
      // outside review: `"isActive": null` was a 500 (NOT NULL column); null is no value of any request field
      for (const invalid of [
        { name: 'x', url: 'https://hooks.example.com/x', isActive: null },
        { name: '   ', url: 'https://hooks.example.com/x' },
        { name: null, url: 'https://hooks.example.com/x' },
      ]) {
        const response = await api(`/api/v2/orders/webhooks/${webhook.id}`, { key: account.liveKey, method: 'PUT', body: invalid });
        expect({ invalid, status: response.status, body: response.body }).toEqual({ invalid, status: 400, body: { code: 'VALIDATION_FAILED' } });
      }
      const trimmed = await api<{ data: { name: string; url: string; isActive: boolean } }>(`/api/v2/orders/webhooks/${webhook.id}`, {
        key: account.liveKey,
        method: 'PUT',
        body: { name: '  renamed  ', url: ' https://hooks.example.com/y ' },
      });
      expect({ status: trimmed.status, data: trimmed.body.data }).toMatchObject({ status: 200, data: { name: 'renamed', url: 'https://hooks.example.com/y', isActive: true } });
      const unknownEvent = await api(`/api/v2/orders/webhooks/${webhook.id}/events/123456789/retry`, { key: account.liveKey, method: 'POST' });
      expect(unknownEvent.status).toBe(404);
      expect(unknownEvent.body).toEqual({ code: 'RESOURCE_NOT_FOUND' });
      const badPage = await api(`/api/v2/orders/webhooks/${webhook.id}/events?limit=1000`, { key: account.liveKey });
      expect(badPage.status).toBe(400);
    });

    it('refuses a webhook beyond 20 in the key mode with 409 WEBHOOK_LIMIT_REACHED; the other mode has its own 20', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const made: CreatedWebhook[] = [];
      for (let index = 0; index < 20; index += 1) {
        made.push(await createWebhook(account.testKey, `https://hooks.example.com/${index}`, `hook ${index}`));
      }
      const refused = await api('/api/v2/orders/webhooks', { key: account.testKey, method: 'POST', body: { name: 'one more', url: 'https://hooks.example.com/more' } });
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 409, body: { code: 'WEBHOOK_LIMIT_REACHED' } });
      expect((await api<{ data: unknown[] }>('/api/v2/orders/webhooks', { key: account.testKey })).body.data).toHaveLength(20);
      await createWebhook(account.liveKey, 'https://hooks.example.com/live');
      expect((await api(`/api/v2/orders/webhooks/${made[0].id}`, { key: account.testKey, method: 'DELETE' })).status).toBe(200);
      await createWebhook(account.testKey, 'https://hooks.example.com/again');
    });

    it('retry-failed accepts up to 7 days and refuses a wider range with 400 VALIDATION_FAILED', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const webhook = await createWebhook(account.liveKey, 'https://hooks.example.com/x');
      const retry = (fromDate: string, toDate: string) =>
        api<{ data: { retried: number } }>(`/api/v2/orders/webhooks/${webhook.id}/events/retry-failed`, { key: account.liveKey, method: 'POST', body: { fromDate, toDate } });
      const ok = await retry('2026-03-01', '2026-03-07');
      expect(ok.status).toBe(200);
      expect(ok.body.data.retried).toBe(0);
      for (const [fromDate, toDate] of [
        ['2026-03-01', '2026-03-08'],
        ['2026-03-01T00:00:00Z', '2026-03-08T00:00:01Z'],
        ['2026-03-05', '2026-03-01'],
        ['2026-02-30', '2026-03-01'],
        ['March', '2026-03-01'],
      ]) {
        const response = await retry(fromDate, toDate);
        expect({ fromDate, toDate, status: response.status, body: response.body }).toEqual({ fromDate, toDate, status: 400, body: { code: 'VALIDATION_FAILED' } });
      }
    });
  });

  describe('key modes (finding M1)', () => {
    it('a test key can neither see, change, delete nor retry a live webhook or its events: 404 exactly like an unknown id', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const liveHook = await receiver();
      const liveWebhook = await createWebhook(account.liveKey, liveHook.url(), 'live');
      const liveEvent = await publishEmbedCompleted(account.accountId, 'live');
      await eventually(async () => liveHook.forEvent(liveEvent).length, (count) => count === 1);
      const liveEntry = await eventually(() => eventOf(account.liveKey, liveWebhook.id, liveEvent), (entry) => entry?.status === 'SUCCESS');
      const sandbox = await createWebhook(account.testKey, 'https://hooks.example.com/sandbox', 'sandbox');

      // Each key lists only the webhooks of its own mode.
      const listed = async (key: string) => (await api<{ data: Array<{ id: number }> }>('/api/v2/orders/webhooks', { key })).body.data.map((item) => item.id);
      expect(await listed(account.testKey)).toEqual([sandbox.id]);
      expect(await listed(account.liveKey)).toEqual([liveWebhook.id]);

      const unknownId = 2_000_000_000;
      const attempts: Array<[string, string, unknown]> = [
        ['GET', '', undefined],
        ['PUT', '', { name: 'evil', url: 'https://attacker.example.com/hook' }],
        ['DELETE', '', undefined],
        ['GET', '/events', undefined],
        ['POST', `/events/${liveEntry?.id}/retry`, undefined],
        ['POST', '/events/retry-failed', { fromDate: '2026-03-01', toDate: '2026-03-07' }],
      ];
      for (const [method, suffix, requestBody] of attempts) {
        const onLive = await api(`/api/v2/orders/webhooks/${liveWebhook.id}${suffix}`, { key: account.testKey, method, body: requestBody });
        const onUnknown = await api(`/api/v2/orders/webhooks/${unknownId}${suffix}`, { key: account.testKey, method, body: requestBody });
        expect({ method, suffix, status: onLive.status, body: onLive.body }).toEqual({ method, suffix, status: 404, body: { code: 'RESOURCE_NOT_FOUND' } });
        expect({ method, suffix, status: onUnknown.status, body: onUnknown.body }).toEqual({ method, suffix, status: onLive.status, body: onLive.body });
      }
      // A live delivery id under the test key's own webhook is not found either.
      const viaSandbox = await api(`/api/v2/orders/webhooks/${sandbox.id}/events/${liveEntry?.id}/retry`, { key: account.testKey, method: 'POST' });
      expect([viaSandbox.status, viaSandbox.body]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }]);
      // And the other way round: a live key does not reach the test webhook.
      expect((await api(`/api/v2/orders/webhooks/${sandbox.id}`, { key: account.liveKey })).body).toEqual({ code: 'RESOURCE_NOT_FOUND' });

      // Nothing changed and nothing was resent: the live webhook keeps its URL, its event was delivered once.
      const still = await api<{ data: { url: string; name: string } }>(`/api/v2/orders/webhooks/${liveWebhook.id}`, { key: account.liveKey });
      expect(still.body.data).toMatchObject({ name: 'live', url: liveHook.url() });
      expect(await eventOf(account.liveKey, liveWebhook.id, liveEvent)).toMatchObject({ attempts: 1, status: 'SUCCESS' });
      expect(liveHook.forEvent(liveEvent)).toHaveLength(1);
    });

    it('live events never reach a test webhook; test events reach both; a test key lists and resends only test events', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const liveHook = await receiver();
      const testHook = await receiver();
      const liveWebhook = await createWebhook(account.liveKey, liveHook.url(), 'live');
      const testWebhook = await createWebhook(account.testKey, testHook.url(), 'sandbox');
      const liveEvent = await publishEmbedCompleted(account.accountId, 'live');
      const testEvent = await publishEmbedCompleted(account.accountId, 'test');

      const [testDelivery] = await eventually(async () => testHook.forEvent(testEvent), (found) => found.length === 1);
      expect(body(testDelivery).data.testMode).toBe(true);
      await eventually(async () => [liveHook.forEvent(liveEvent).length, liveHook.forEvent(testEvent).length], ([a, b]) => a === 1 && b === 1);
      // The live event's deliveries were all written in one transaction, before the live receiver got it: the
      // test webhook has none, and so its receiver never gets it.
      const rows = await webhooksDb.query<Array<{ event_id: string }>>('SELECT event_id FROM webhook_delivery WHERE webhook_id = $1', [testWebhook.id]);
      expect(rows.map((row) => row.event_id)).toEqual([testEvent]);
      expect(testHook.received.map((request) => body(request).eventId)).toEqual([testEvent]);
      expect((await events(account.liveKey, liveWebhook.id)).items.map((item) => item.eventId).sort()).toEqual([liveEvent, testEvent].sort());

      // A live event's row under the test webhook (no path writes one; put here by hand, FAILED) is out of the
      // test key's reach: not listed, not resent one by one, not queued by a range retry.
      const [stray] = await webhooksDb.query<Array<{ id: string }>>(
        `INSERT INTO webhook_delivery (webhook_id, account_id, source_event_id, event_id, event_type, order_id, occurred_at, data, status, attempts, completed_at)
         SELECT $1, account_id, 'stray-' || source_event_id, event_id, event_type, order_id, occurred_at, data, 'FAILED', 7, now()
         FROM webhook_delivery WHERE webhook_id = $2 AND event_id = $3
         RETURNING id`,
        [testWebhook.id, liveWebhook.id, liveEvent],
      );
      const listed = await events(account.testKey, testWebhook.id, '?limit=100');
      expect([listed.total, listed.items.map((item) => item.eventId)]).toEqual([1, [testEvent]]);
      const one = await api(`/api/v2/orders/webhooks/${testWebhook.id}/events/${stray.id}/retry`, { key: account.testKey, method: 'POST' });
      expect([one.status, one.body]).toEqual([404, { code: 'RESOURCE_NOT_FOUND' }]);
      const today = new Date().toISOString().slice(0, 10);
      const range = await api<{ data: { retried: number } }>(`/api/v2/orders/webhooks/${testWebhook.id}/events/retry-failed`, {
        key: account.testKey,
        method: 'POST',
        body: { fromDate: today, toDate: today },
      });
      expect([range.status, range.body.data.retried]).toEqual([200, 0]);
      const [after] = await webhooksDb.query<Array<{ status: string; attempts: number }>>('SELECT status, attempts FROM webhook_delivery WHERE id = $1', [stray.id]);
      expect(after).toEqual({ status: 'FAILED', attempts: 7 });

      // Its own test event it resends at once.
      const own = listed.items[0];
      const resent = await api<{ data: Record<string, unknown> }>(`/api/v2/orders/webhooks/${testWebhook.id}/events/${own.id}/retry`, { key: account.testKey, method: 'POST' });
      expect(resent.body.data).toEqual({ event_id: testEvent, success: true, status_code: 200, status: 'SUCCESS', error: null });
      expect(testHook.received.map((request) => body(request).eventId)).toEqual([testEvent, testEvent]);
    });
  });

  describe('delivery', () => {
    it('POSTs a signed payload that verifies against the raw bytes with both schemes', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const hook = await receiver();
      const webhook = await createWebhook(account.liveKey, hook.url());
      const eventId = await publishEmbedCompleted(account.accountId);
      const [request] = await eventually(async () => hook.forEvent(eventId), (found) => found.length === 1);

      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      const expectedHex = createHmac('sha256', webhook.secret).update(request.rawBody).digest('hex');
      expect(request.headers['x-service-signature']).toBe(expectedHex);
      const id = String(request.headers['webhook-id']);
      const timestamp = String(request.headers['webhook-timestamp']);
      const key = Buffer.from(webhook.secret.slice('whsec_'.length), 'base64');
      const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), request.rawBody]);
      expect(request.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
      // A signature over anything but the exact bytes does not match.
      expect(createHmac('sha256', webhook.secret).update(`${request.rawBody.toString('utf8')} `).digest('hex')).not.toBe(expectedHex);

      const payload = body(request);
      expect(id).toBe(eventId);
      expect(payload).toMatchObject({ eventId, eventType: 'order.watermarkEmbed.completed', occurredAt: anyString });
      expect(payload.data).toMatchObject({ status: 'complete', fileCount: 1, testMode: false, orderName: anyString, completedAt: anyString });
      expect(String(payload.data.downloadUrl)).toMatch(/X-Amz-Expires=3600/);

      const logged = await eventually(() => eventOf(account.liveKey, webhook.id, eventId), (entry) => entry?.status === 'SUCCESS');
      expect(logged).toMatchObject({ status: 'SUCCESS', attempts: 1, lastStatusCode: 200, error: null, eventType: 'order.watermarkEmbed.completed' });

      const metrics = await (await fetch(`http://127.0.0.1:${metricsPortOf(layout.ports.webhooks[0])}/metrics`)).text();
      expect(metrics).toMatch(/webhook_delivery_attempts_total\{outcome="success",trigger="automatic"\} [1-9]/);
      expect(metrics).toMatch(/webhook_deliveries_total\{outcome="success"\} [1-9]/);
      expect(metrics).toContain('webhook_oldest_pending_delivery_age_seconds');
    });

    it('delivers failed orders and test-key orders too (testMode: true)', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const hook = await receiver();
      await createWebhook(account.liveKey, hook.url());
      const failedId = await publishFailed(account.accountId);
      const testId = await publishEmbedCompleted(account.accountId, 'test');
      const [failed] = await eventually(async () => hook.forEvent(failedId), (found) => found.length === 1);
      expect(body(failed)).toMatchObject({
        eventType: 'order.watermarkEmbed.failed',
        data: { status: 'failed', errorCode: 'PROCESSING_ERROR', errorMessage: anyString, failedAt: anyString },
      });
      const [test] = await eventually(async () => hook.forEvent(testId), (found) => found.length === 1);
      expect(body(test).data.testMode).toBe(true);
    });

    it('a manual retry for an inactive webhook sends nothing: the event waits and goes out once it is activated again', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const hook = await receiver();
      const webhook = await createWebhook(account.liveKey, hook.url());
      const eventId = await publishEmbedCompleted(account.accountId);
      await eventually(async () => hook.forEvent(eventId), (found) => found.length === 1);
      const delivery = await eventually(() => eventOf(account.liveKey, webhook.id, eventId), (entry) => entry?.status === 'SUCCESS');
      const off = await api(`/api/v2/orders/webhooks/${webhook.id}`, { key: account.liveKey, method: 'PUT', body: { name: 'main', url: hook.url(), isActive: false } });
      expect(off.status).toBe(200);

      const retried = await api<{ data: Record<string, unknown> }>(`/api/v2/orders/webhooks/${webhook.id}/events/${String(delivery?.id)}/retry`, { key: account.liveKey, method: 'POST' });
      expect([retried.status, retried.body.data]).toEqual([
        200,
        { event_id: eventId, success: false, status_code: 0, status: 'PENDING', error: 'the webhook is inactive: the event is sent when it is activated again' },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hook.forEvent(eventId)).toHaveLength(1);

      const on = await api(`/api/v2/orders/webhooks/${webhook.id}`, { key: account.liveKey, method: 'PUT', body: { name: 'main', url: hook.url(), isActive: true } });
      expect(on.status).toBe(200);
      await eventually(async () => hook.forEvent(eventId), (found) => found.length === 2);
    });

    it('a receiver that fails twice gets the event on the third attempt, about 1 s and 2 s later', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const hook = await receiver((attempt) => (attempt <= 2 ? 503 : 200));
      const webhook = await createWebhook(account.liveKey, hook.url());
      const eventId = await publishEmbedCompleted(account.accountId);
      const attempts = await eventually(async () => hook.forEvent(eventId), (found) => found.length >= 3);
      const gap1 = attempts[1].receivedAt - attempts[0].receivedAt;
      const gap2 = attempts[2].receivedAt - attempts[1].receivedAt;
      // Each retry waits its delay (1 s, then 2 s; the exact schedule is retry-schedule.spec's), and comes seconds after
      // it, not at the scheduled retries' 30 minutes. The upper bounds leave 4 s for the stack's own latency: 1 s is
      // too little on a loaded machine (a CI run beside other work).
      expect(gap1).toBeGreaterThanOrEqual(800);
      expect(gap1).toBeLessThan(1000 + 4000);
      expect(gap2).toBeGreaterThanOrEqual(1600);
      expect(gap2).toBeLessThan(2000 + 4000);
      // Same event, same id on every attempt.
      expect(new Set(attempts.map((request) => body(request).eventId))).toEqual(new Set([eventId]));
      const logged = await eventually(() => eventOf(account.liveKey, webhook.id, eventId), (entry) => entry?.status === 'SUCCESS');
      expect(logged).toMatchObject({ attempts: 3, lastStatusCode: 200 });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hook.forEvent(eventId)).toHaveLength(3);
    });

    it('a receiver that does not answer within 5 s is timed out and retried', async () => {
      const account = await createAccount(gateway, 'pro', 0);
      const hook = await receiver((attempt) => (attempt === 1 ? 'hang' : 200));
      const webhook = await createWebhook(account.liveKey, hook.url());
      const eventId = await publishEmbedCompleted(account.accountId);
      const attempts = await eventually(async () => hook.forEvent(eventId), (found) => found.length >= 2, 30_000);
      const gap = attempts[1].receivedAt - attempts[0].receivedAt;
      // 5 s timeout, then the 1 s retry delay (and up to 4 s of the stack's latency, as above).
      expect(gap).toBeGreaterThanOrEqual(5500);
      expect(gap).toBeLessThan(6000 + 4000);
      const logged = await eventually(() => eventOf(account.liveKey, webhook.id, eventId), (entry) => entry?.status === 'SUCCESS');
      expect(logged).toMatchObject({ attempts: 2, lastStatusCode: 200 });
    });

    it('a stuck endpoint does not delay deliveries to a healthy one', async () => {
      const slowAccount = await createAccount(gateway, 'pro', 0);
      const fastAccount = await createAccount(gateway, 'pro', 0);
      const slow = await receiver(() => 'hang');
      const fast = await receiver();
      const slowWebhook = await createWebhook(slowAccount.liveKey, slow.url());
      await createWebhook(fastAccount.liveKey, fast.url());
      for (let index = 0; index < 8; index += 1) {
        await publishEmbedCompleted(slowAccount.accountId);
      }
      await eventually(async () => slow.received.length, (count) => count >= 1);
      const eventId = await publishEmbedCompleted(fastAccount.accountId);
      const [request] = await eventually(async () => fast.forEvent(eventId), (found) => found.length === 1, 10_000);
      // Compared by order, not by the time since publishing (it was under 3 s, which a loaded machine running the whole
      // stack need not keep): delivered while the stuck endpoint's requests still hung, so it did not wait for them.
      const firstEnded = (): number => Math.min(...slow.received.map((hung) => hung.endedAt ?? Number.POSITIVE_INFINITY));
      expect(request.receivedAt).toBeLessThan(firstEnded());
      // Deliveries to one endpoint are bounded (4 per endpoint by default), however many are due: four hang together,
      // and a fifth request comes only once one of them has ended (the sender's 5 s timeout).
      await eventually(async () => slow.received.length, (count) => count >= 5, 30_000);
      expect(slow.received.slice(0, 4).every((hung) => hung.receivedAt < firstEnded())).toBe(true);
      expect(slow.received[4].receivedAt).toBeGreaterThanOrEqual(firstEnded());
      expect((await api(`/api/v2/orders/webhooks/${slowWebhook.id}`, { key: slowAccount.liveKey, method: 'DELETE' })).status).toBe(200);
    });
  });

  describe('retries over hours, restarts, manual retries and the failure e-mail', () => {
    it('scheduled retries at 30 min, 2 h and 4 h survive a killed service, then FAILED; e-mail once a day; manual and range retries re-deliver', async () => {
      const account = await accountWithOwner();
      let healthy = false;
      const hook = await receiver(() => (healthy ? 200 : 500));
      const webhook = await createWebhook(account.liveKey, hook.url());
      const first = await publishFailed(account.accountId);
      const second = await publishEmbedCompleted(account.accountId);

      // Both events received `count` attempts and both attempts are recorded. The clock only moves after
      // that: the next delay counts from the end of the attempt, read from the clock when it is recorded.
      const attemptsReach = async (count: number, timeoutMs?: number): Promise<void> => {
        await eventually(async () => [hook.forEvent(first).length, hook.forEvent(second).length], ([a, b]) => a === count && b === count, timeoutMs);
        await eventually(
          async () => [(await eventOf(account.liveKey, webhook.id, first))?.attempts, (await eventOf(account.liveKey, webhook.id, second))?.attempts],
          ([a, b]) => a === count && b === count,
        );
      };

      // Initial delivery: the first attempt and three immediate retries, all failing.
      await attemptsReach(4, 30_000);
      const afterInitial = await eventOf(account.liveKey, webhook.id, first);
      expect(afterInitial).toMatchObject({ status: 'PENDING', lastStatusCode: 500 });
      const wait = Date.parse(afterInitial?.nextAttemptAt ?? '') - Date.parse(afterInitial?.lastAttemptAt ?? '');
      expect(wait).toBe(30 * MINUTE);

      // One e-mail for the account, although two initial deliveries failed.
      await eventually(async () => mailsTo(account.email).length, (count) => count === 1);
      const mail = mailsTo(account.email)[0];
      expect(mail).toContain('Subject: Webhook delivery failing');
      expect(mail).toContain('Last result: HTTP 500');

      // Nothing is lost when the service dies between attempts.
      const processes = stack();
      await processes.stop('webhooks', 'SIGKILL');
      await processes.startService('webhooks');

      setClockOffset(29 * MINUTE);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(hook.forEvent(first)).toHaveLength(4);

      setClockOffset(31 * MINUTE);
      await attemptsReach(5);

      setClockOffset(31 * MINUTE + 2 * HOUR - MINUTE);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(hook.forEvent(first)).toHaveLength(5);
      setClockOffset(31 * MINUTE + 2 * HOUR + MINUTE);
      await attemptsReach(6);

      setClockOffset(32 * MINUTE + 6 * HOUR + MINUTE);
      await attemptsReach(7);
      const failed = await eventually(() => eventOf(account.liveKey, webhook.id, first), (entry) => entry?.status === 'FAILED');
      expect(failed).toMatchObject({ status: 'FAILED', attempts: 7, lastStatusCode: 500, error: 'HTTP 500', nextAttemptAt: null });
      expect((await events(account.liveKey, webhook.id, '?status=FAILED')).total).toBe(2);
      // No attempt after the last one.
      setClockOffset(40 * HOUR);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(hook.forEvent(first)).toHaveLength(7);

      // Still within a day of the first e-mail? No: 40 h later, a new failing initial delivery mails again, once.
      const third = await publishFailed(account.accountId);
      await eventually(async () => hook.forEvent(third).length, (count) => count === 4, 30_000);
      await eventually(async () => mailsTo(account.email).length, (count) => count === 2);
      const fourth = await publishFailed(account.accountId);
      await eventually(async () => hook.forEvent(fourth).length, (count) => count === 4, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(mailsTo(account.email)).toHaveLength(2);

      // Manual retry of one FAILED event: one attempt now, answered with its outcome.
      healthy = true;
      const firstEntry = await eventOf(account.liveKey, webhook.id, first);
      const retried = await api<{ data: Record<string, unknown> }>(`/api/v2/orders/webhooks/${webhook.id}/events/${firstEntry?.id}/retry`, {
        key: account.liveKey,
        method: 'POST',
      });
      expect(retried.status).toBe(200);
      expect(retried.body.data).toEqual({ event_id: first, success: true, status_code: 200, status: 'SUCCESS', error: null });
      expect(hook.forEvent(first)).toHaveLength(8);
      expect(body(hook.forEvent(first)[7]).eventId).toBe(first);

      // Range retry: the other FAILED event is queued again and delivered.
      const today = new Date();
      const fromDate = new Date(today.getTime() - 2 * 24 * HOUR).toISOString().slice(0, 10);
      const toDate = new Date(today.getTime() + 2 * 24 * HOUR).toISOString().slice(0, 10);
      const range = await api<{ data: { retried: number } }>(`/api/v2/orders/webhooks/${webhook.id}/events/retry-failed`, {
        key: account.liveKey,
        method: 'POST',
        body: { fromDate, toDate },
      });
      expect(range.status).toBe(200);
      expect(range.body.data.retried).toBe(1);
      await eventually(async () => hook.forEvent(second).length, (count) => count === 8);
      const redelivered = await eventually(() => eventOf(account.liveKey, webhook.id, second), (entry) => entry?.status === 'SUCCESS');
      expect(redelivered).toMatchObject({ attempts: 8, lastStatusCode: 200 });
      expect((await events(account.liveKey, webhook.id, '?status=FAILED')).total).toBe(0);
    });
  });
});

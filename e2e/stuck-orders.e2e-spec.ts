// No stranded credit, end to end: an order whose job never completes (the watermark processor frozen with SIGSTOP)
// stays inProgress; past STUCK_ORDER_MAX_AGE_MS (6 hours, the clock of every service moved forward) the orders
// service's sweeper fails it with PROCESSING_TIMEOUT, its credits come back, and the failed webhook is sent.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, openSchema, setClockOffset, stack, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, embedBody, getOrder, uploadFiles } from './support/orders';
import { WebhookReceiver } from './support/webhook-receiver';

const HOUR = 3600_000;
const PROCESSOR = 'watermark-processor';

interface HookBody {
  eventType: string;
  data: { orderId?: string; status?: string; errorCode?: string; errorMessage?: string };
}

describe('an order stuck inProgress', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;
  let receiver: WebhookReceiver;
  let frozen = false;

  const balance = async (): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [account.accountId]))[0]?.balance ?? -1;
  const failureCode = async (orderId: string): Promise<string | null> =>
    (await orders.query<Array<{ failure_code: string | null }>>('SELECT failure_code FROM "order" WHERE id = $1', [orderId]))[0]?.failure_code ?? null;
  const hooks = (): HookBody[] => receiver.received.map((request) => JSON.parse(request.rawBody.toString('utf8')) as HookBody);

  const thaw = (): void => {
    if (frozen) {
      process.kill(stack().state.processes[PROCESSOR].pid, 'SIGCONT');
      frozen = false;
    }
  };

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'enterprise', 10);
    await eventually(balance, (value) => value === 10);
    receiver = await WebhookReceiver.start();
    expect((await api('/api/v2/orders/webhooks', { key: account.liveKey, method: 'POST', body: { name: 'stuck', url: receiver.url() } })).status).toBe(201);
  });

  afterAll(async () => {
    setClockOffset(0);
    thaw();
    await receiver.stop();
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  it('fails with PROCESSING_TIMEOUT past the sweeper age, refunded, and the failed webhook is sent', async () => {
    // The job is published but never answered: the only processor is frozen (it keeps its sockets, answers nothing).
    process.kill(stack().state.processes[PROCESSOR].pid, 'SIGSTOP');
    frozen = true;
    const created = await createEmbed(account.liveKey, embedBody([{ fileName: 'coffee.png', texts: ['stuck-1', 'stuck-2'] }], randomUUID()));
    expect(created.status).toBe(200);
    const orderId = created.body.data.orderId;
    await eventually(balance, (value) => value === 8);
    expect(await uploadFiles(created.body.data, [corpusFile('photos/coffee.png')])).toEqual([200]);
    await eventually(() => getOrder(account.liveKey, orderId), (order) => order.status === 'inProgress', 30_000);

    // Younger than the age: the sweeper (every second in e2e) leaves it alone.
    setClockOffset(5 * HOUR);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await getOrder(account.liveKey, orderId)).status).toBe('inProgress');
    expect(await balance()).toBe(8);

    setClockOffset(7 * HOUR);
    const failed = await eventually(() => getOrder(account.liveKey, orderId), (order) => order.status === 'failed', 30_000);
    expect(failed.status).toBe('failed');
    expect(await failureCode(orderId)).toBe('PROCESSING_TIMEOUT');
    await eventually(balance, (value) => value === 10);
    const sent = await eventually(
      () => Promise.resolve(hooks().filter((body) => body.data.orderId === orderId && body.eventType.endsWith('.failed'))),
      (bodies) => bodies.length > 0,
      30_000,
    );
    expect(sent[0]).toMatchObject({ eventType: 'order.watermarkEmbed.failed', data: { orderId, status: 'failed', errorCode: 'PROCESSING_TIMEOUT' } });
    expect(sent[0].data.errorMessage).toEqual(expect.any(String));

    // The frozen job's late result changes nothing: the order stays failed and refunded once.
    setClockOffset(0);
    thaw();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await getOrder(account.liveKey, orderId)).status).toBe('failed');
    expect(await balance()).toBe(10);
  });
});

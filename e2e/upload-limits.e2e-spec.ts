// Uploads over the input limit (finding M2): a live upload URL is storage's presigned PUT, which cannot carry a
// size limit, so the uploads service refuses an object over its order type's limit as soon as storage announces it:
// the object is deleted, the order fails with the processor's code and its credits come back; a later PUT to the
// still-valid URL cannot fill the slot again. The uploads service is restarted with a 1 MiB limit for this suite
// (the workers keep the default), so no test uploads 200 MiB.
import { StorageEnv, toStorageConfig, validateEnv } from '@cp/config';
import { ObjectKeys, V2OrderDetailView, WatermarkOrderView } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, stack, TestAccount } from './support/e2e-stack';
import { corpusFile, createEmbed, embedBody, waitForOrder } from './support/orders';

const LIMIT_BYTES = 1024 * 1024;

async function restartUploads(extraEnv: Record<string, string>): Promise<void> {
  const processes = stack();
  processes.state.layout.extraEnv = { ...(layout.extraEnv ?? {}), ...extraEnv };
  await processes.stop('uploads');
  await processes.startService('uploads');
}

describe('uploads over the input limit', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;
  const storage = new ObjectStorage(
    toStorageConfig(validateEnv(StorageEnv, { PORT: '1', DATABASE_URL: 'postgres://unused/x', S3_ENDPOINT: `http://127.0.0.1:${layout.s3Port}` })),
  );

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  const put = async (url: string | null | undefined, body: Buffer): Promise<number> => {
    const response = await fetch(url ?? '', { method: 'PUT', body: new Uint8Array(body) });
    await response.arrayBuffer();
    return response.status;
  };

  const inputKey = (order: WatermarkOrderView, fileName: string): string => ObjectKeys.input(account.accountId, order.orderId, order.files[0].fileId, fileName);

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'enterprise', 20);
    await eventually(() => balance(account.accountId), (value) => value === 20);
    await restartUploads({ WATERMARK_MAX_INPUT_BYTES: String(LIMIT_BYTES), AI_DETECTION_MAX_INPUT_BYTES: String(LIMIT_BYTES) });
  });

  afterAll(async () => {
    await restartUploads({});
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  it('a live upload over the limit is deleted at once and fails the order with WATERMARK_FILE_TOO_LARGE, credits back; a second PUT to its URL is deleted too', async () => {
    const created = (await createEmbed(account.liveKey, embedBody([{ fileName: 'big.png', texts: ['a', 'b'] }]))).body.data;
    await eventually(() => balance(account.accountId), (value) => value === 18);
    const key = inputKey(created, 'big.png');

    expect(await put(created.files[0].uploadUrl, randomBytes(LIMIT_BYTES + 1))).toBe(200);
    const failed = await waitForOrder(account.liveKey, created.orderId, ['failed', 'complete'], 30_000);
    expect(failed.status).toBe('failed');
    const detail = (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: account.liveKey })).body.data;
    expect(detail.errors?.errorCode).toBe('WATERMARK_FILE_TOO_LARGE');
    expect(await eventually(() => balance(account.accountId), (value) => value === 20)).toBe(20);
    expect(await eventually(() => storage.stat(storage.buckets.inputs, key), (info) => info === null)).toBeNull();

    // The URL is still valid for its 900 s: whatever is PUT there now is deleted as it arrives.
    expect(await put(created.files[0].uploadUrl, corpusFile('photos/coffee.png'))).toBe(200);
    expect(await eventually(() => storage.stat(storage.buckets.inputs, key), (info) => info === null)).toBeNull();
    expect(await balance(account.accountId)).toBe(20);
  });

  it('a test-key upload over the same limit fails its order with the same code (the sink streams and keeps nothing)', async () => {
    const created = (await createEmbed(account.testKey, embedBody([{ fileName: 'big.png', texts: ['a'] }]))).body.data;
    const answer = await fetch(created.files[0].uploadUrl ?? '', { method: 'PUT', body: new Uint8Array(randomBytes(LIMIT_BYTES + 1)) });
    expect([answer.status, await answer.json()]).toEqual([200, { data: { fileId: created.files[0].fileId, size: LIMIT_BYTES + 1 } }]);
    const failed = await waitForOrder(account.testKey, created.orderId, ['failed', 'complete'], 30_000);
    expect(failed.status).toBe('failed');
    const detail = (await api<{ data: V2OrderDetailView }>(`/api/v2/orders/${created.orderId}`, { key: account.testKey })).body.data;
    expect(detail.errors?.errorCode).toBe('WATERMARK_FILE_TOO_LARGE');
  });

  it('an upload within the limit is processed as before', async () => {
    const created = (await createEmbed(account.liveKey, embedBody([{ fileName: 'small.png', texts: ['ok'] }]))).body.data;
    const png = corpusFile('photos/coffee.png');
    expect(png.length).toBeLessThanOrEqual(LIMIT_BYTES);
    expect(await put(created.files[0].uploadUrl, png)).toBe(200);
    expect((await waitForOrder(account.liveKey, created.orderId)).status).toBe('complete');
  });
});

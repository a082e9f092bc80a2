import { inlineHandlerContext, inlineTransactions } from '@cp/messaging/testing';
import { EgressFailure } from '@cp/egress';
import { Events, FetchSourceJob, OrderFailureCode, OutboxMessage } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { ConsumerDefinition, HandlerContext, isTransientInfrastructureError, MessagingRuntime } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { rejectionOf } from '@cp/testing';
import { createServer } from 'node:net';
import { EntityManager } from 'typeorm';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UploadsConfig } from '../uploads.config';
import { FetchSourceConsumer } from './fetch-source.consumer';
import { SourceFetcher, SourceFetchError } from './source-fetcher';

type FetchJob = FetchSourceJob;
type Handle = (job: FetchJob, context: HandlerContext) => Promise<void>;

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('FetchSourceConsumer', () => {
  const slotOf = (mode: 'live' | 'test'): UploadSlotEntity =>
    ({ fileId: '34', orderId: '12', accountId: '5', mode, status: 'fetching', sourceUrl: 'https://images.example.com/a.png', bucket: 'cp-inputs', objectKey: '5/12/inputs/34/a.png' }) as UploadSlotEntity;

  function consumerFor(slot: UploadSlotEntity): { handle: Handle; fetched: string[]; uploaded: Array<[string, number]>; released: string[] } {
    const fetched: string[] = [];
    const uploaded: Array<[string, number]> = [];
    const released: string[] = [];
    let handle: Handle | undefined;
    const messaging = { register: (options: { handle: Handle }) => (handle = options.handle) } as unknown as MessagingRuntime;
    const slots = {
      findOne: () => Promise.resolve(slot),
      releaseFetches: (_tx: unknown, orderId: string, fileIds: readonly string[]) => {
        released.push(...fileIds.map((fileId) => `${orderId}/${fileId}`));
        return Promise.resolve();
      },
    } as unknown as UploadSlotsRepository;
    const fetcher = {
      fetchInto: (url: string) => {
        fetched.push(url);
        return Promise.resolve(10);
      },
    } as unknown as SourceFetcher;
    const receive = {
      execute: (_tx: EntityManager, fileId: string, size: number) => {
        uploaded.push([fileId, size]);
        return Promise.resolve({ outcome: 'recorded', recordedSize: size, discard: null });
      },
      discard: () => Promise.resolve(),
    } as unknown as ReceiveUploadUseCase;
    new FetchSourceConsumer({} as TransactionRepository, slots, messaging, fetcher, receive).onModuleInit();
    if (!handle) {
      throw new Error('the consumer registered no handler');
    }
    return { handle, fetched, uploaded, released };
  }

  const context: HandlerContext = inlineHandlerContext('e1');

  it("a test-key order's source URL is never fetched: the file counts as arrived, nothing stored", async () => {
    const { handle, fetched, uploaded, released } = consumerFor(slotOf('test'));
    await handle({ fileId: '34' }, context);
    expect(fetched).toEqual([]);
    expect(uploaded).toEqual([['34', 0]]);
    expect(released).toEqual(['12/34']);
  });

  it("a live order's source URL is fetched", async () => {
    const { handle, fetched, uploaded, released } = consumerFor(slotOf('live'));
    await handle({ fileId: '34' }, context);
    expect(fetched).toEqual(['https://images.example.com/a.png']);
    expect(uploaded).toEqual([['34', 10]]);
    // The fetch is over: its place in the account's share of fetches is free.
    expect(released).toEqual(['12/34']);
  });

  it('a job whose file is no longer fetching (its order failed, a redelivery) fetches nothing and frees its place', async () => {
    const { handle, fetched, released } = consumerFor({ ...slotOf('live'), status: 'failed' });
    await handle({ fileId: '34' }, context);
    expect(fetched).toEqual([]);
    expect(released).toEqual(['12/34']);
  });

  it('a source URL that refuses connections is a counted attempt, retried with backoff, and the last one fails the file with WATERMARK_SOURCE_URL_FAILED', async () => {
    // The real fetcher (private addresses allowed, as in a test stack), so the error is the one production throws.
    const url = `https://127.0.0.1:${await closedPort()}/a.jpg`;
    const slot = { ...slotOf('live'), sourceUrl: url };
    const failed: Array<[string, string]> = [];
    const published: OutboxMessage[] = [];
    const released: string[] = [];
    const slots = {
      findOne: () => Promise.resolve(slot),
      markFailed: (_tx: unknown, fileId: string, reason: string) => {
        failed.push([fileId, reason]);
        slot.status = 'failed';
        return Promise.resolve();
      },
      publish: (_tx: unknown, messages: readonly OutboxMessage[]) => {
        published.push(...messages);
        return Promise.resolve();
      },
      releaseFetches: (_tx: unknown, orderId: string, fileIds: readonly string[]) => {
        released.push(...fileIds.map((fileId) => `${orderId}/${fileId}`));
        return Promise.resolve();
      },
    } as unknown as UploadSlotsRepository;
    const config = { sourceFetch: { maxBytes: 1024 * 1024, deadlineMs: 5000, allowPrivate: true, allowedIps: [] as string[] } } as unknown as UploadsConfig;
    const fetcher = new SourceFetcher(config, { put: () => Promise.reject(new Error('nothing may be stored')) } as unknown as ObjectStorage);
    let definition: ConsumerDefinition<FetchJob> | undefined;
    const messaging = { register: (registered: ConsumerDefinition<FetchJob>) => (definition = registered) } as unknown as MessagingRuntime;
    new FetchSourceConsumer(inlineTransactions(), slots, messaging, fetcher, {} as ReceiveUploadUseCase).onModuleInit();
    if (!definition?.onExhausted) {
      throw new Error('the consumer registered no exhaustion hook');
    }

    const error = await rejectionOf(definition.handle({ fileId: '34' }, context), SourceFetchError);
    expect(error).toMatchObject({ permanent: false, reason: EgressFailure.NETWORK });
    expect(error.message).toContain('ECONNREFUSED');
    // The consumer counts it as an attempt (redelivered after its backoff) instead of holding it as an outage of
    // our own infrastructure, retried in process for minutes without counting.
    expect(isTransientInfrastructureError(error)).toBe(false);
    expect(definition.maxAttempts).toBeGreaterThan(1);
    expect(definition.backoffMs?.length).toBeGreaterThan(0);
    expect(failed).toEqual([]);
    // An attempt that will be retried keeps its place.
    expect(released).toEqual([]);

    // Its attempts used up: the file fails with the public code.
    await definition.onExhausted({ fileId: '34' }, 'e1', error);
    expect(failed).toEqual([['34', error.message]]);
    expect(published).toEqual([{ contract: Events.fileFailed, payload: { orderId: '12', fileId: '34', code: OrderFailureCode.WATERMARK_SOURCE_URL_FAILED } }]);
    expect(released).toEqual(['12/34']);
  });
});

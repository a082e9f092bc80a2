import { inlineHandlerContext } from '@cp/messaging/testing';
import { FetchSourceJob } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { HandlerContext, MessagingRuntime } from '@cp/messaging';
import { EntityManager } from 'typeorm';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { FetchSourceConsumer } from './fetch-source.consumer';
import { SourceFetcher } from './source-fetcher';

type FetchJob = FetchSourceJob;
type Handle = (job: FetchJob, context: HandlerContext) => Promise<void>;

describe('FetchSourceConsumer', () => {
  const slotOf = (mode: 'live' | 'test'): UploadSlotEntity =>
    ({ fileId: '34', orderId: '12', accountId: '5', mode, status: 'fetching', sourceUrl: 'https://images.example.com/a.png', bucket: 'cp-inputs', objectKey: '5/12/inputs/34/a.png' }) as UploadSlotEntity;

  function consumerFor(slot: UploadSlotEntity): { handle: Handle; fetched: string[]; uploaded: Array<[string, number]> } {
    const fetched: string[] = [];
    const uploaded: Array<[string, number]> = [];
    let handle: Handle | undefined;
    const messaging = { register: (options: { handle: Handle }) => (handle = options.handle) } as unknown as MessagingRuntime;
    const slots = { findOne: () => Promise.resolve(slot) } as unknown as UploadSlotsRepository;
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
    return { handle, fetched, uploaded };
  }

  const context: HandlerContext = inlineHandlerContext('e1');

  it("a test-key order's source URL is never fetched: the file counts as arrived, nothing stored", async () => {
    const { handle, fetched, uploaded } = consumerFor(slotOf('test'));
    await handle({ fileId: '34' }, context);
    expect(fetched).toEqual([]);
    expect(uploaded).toEqual([['34', 0]]);
  });

  it("a live order's source URL is fetched", async () => {
    const { handle, fetched, uploaded } = consumerFor(slotOf('live'));
    await handle({ fileId: '34' }, context);
    expect(fetched).toEqual(['https://images.example.com/a.png']);
    expect(uploaded).toEqual([['34', 10]]);
  });
});

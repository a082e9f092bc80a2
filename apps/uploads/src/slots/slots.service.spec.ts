// The uploads use cases with a fake slot repository (no database): what is registered, which URLs are
// handed out, what is published, and how test-key uploads are verified.
import { ManualClock } from '@cp/clock';
import { DomainException, ErrorCode, EventSubjects, JobSubjects, OrderFailureCode, OutboxMessage } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { ObjectStorage, signUploadToken, verifyUploadToken } from '@cp/storage';
import { UploadsConfig } from '../uploads.config';
import { MarkUploadedUseCase } from './mark-uploaded.use-case';
import { ReceiveUploadUseCase } from './receive-upload.use-case';
import { RegisterSlotsUseCase } from './register-slots.use-case';
import { SlotsService } from './slots.service';
import { UploadSlotEntity } from './upload-slot.entity';
import { InsertedUploadSlot, NewUploadSlot, UploadedSlot, UploadSlotsRepository } from './upload-slots.repository';
import { UploadUrlsService } from './upload-urls.service';

/** Slots in a map, with the repository's rules: insert once per file id, mark uploaded once. */
class FakeSlots {
  readonly rows = new Map<string, UploadSlotEntity>();
  readonly published: OutboxMessage[] = [];

  insertNew(_tx: Transaction | null, slots: NewUploadSlot[]): Promise<InsertedUploadSlot[]> {
    const fresh = slots.filter((slot) => !this.rows.has(slot.fileId)).map((slot) => ({ ...slot, status: slot.sourceUrl ? ('fetching' as const) : ('awaiting' as const) }));
    for (const slot of fresh) {
      this.rows.set(slot.fileId, { ...slot, size: null } as unknown as UploadSlotEntity);
    }
    return Promise.resolve(fresh);
  }

  findByFileIds(_tx: Transaction | null, fileIds: string[]): Promise<UploadSlotEntity[]> {
    return Promise.resolve(fileIds.flatMap((id) => this.rows.get(id) ?? []));
  }

  findOfOrder(orderId: string, fileIds: string[]): Promise<UploadSlotEntity[]> {
    return Promise.resolve(fileIds.flatMap((id) => this.rows.get(id) ?? []).filter((row) => row.orderId === orderId));
  }

  findOne(_tx: Transaction | null, where: { fileId: string; orderId?: string; mode?: string }): Promise<UploadSlotEntity | null> {
    const row = this.rows.get(where.fileId);
    const matches = row && (!where.orderId || row.orderId === where.orderId) && (!where.mode || row.mode === where.mode);
    return Promise.resolve(matches ? row : null);
  }

  lock(_tx: Transaction, fileId: string): Promise<UploadSlotEntity | null> {
    return Promise.resolve(this.rows.get(fileId) ?? null);
  }

  markRefused(_tx: Transaction, fileId: string, size: number): Promise<boolean> {
    const row = this.rows.get(fileId);
    if (!row || (row.status !== 'awaiting' && row.status !== 'fetching')) {
      return Promise.resolve(false);
    }
    row.status = 'failed';
    row.size = String(size);
    return Promise.resolve(true);
  }

  markUploaded(_tx: Transaction, fileId: string, size: number): Promise<UploadedSlot | null> {
    const row = this.rows.get(fileId);
    if (!row || (row.status !== 'awaiting' && row.status !== 'fetching')) {
      return Promise.resolve(null);
    }
    row.status = 'uploaded';
    row.size = String(size);
    return Promise.resolve({ orderId: row.orderId, traceparent: null });
  }

  knownFileIds(fileIds: string[]): Promise<string[]> {
    return Promise.resolve(fileIds.filter((fileId) => this.rows.has(fileId)));
  }

  publish(_tx: Transaction, messages: readonly OutboxMessage[]): Promise<void> {
    this.published.push(...messages);
    return Promise.resolve();
  }
}

const secret = 'test-upload-secret-0001';
const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
const config = {
  storage: { buckets: { inputs: 'cp-inputs' } },
  publicBaseUrl: 'https://api.example',
  testUploadSecret: secret,
  uploadUrlSeconds: 900,
  uploadWindowMs: 12 * 3600_000,
  inputLimits: { watermark: 1000, aiDetection: 1000 },
  sourceFetch: { perAccount: 2 },
} as unknown as UploadsConfig;
const storage = { presignPut: (bucket: string, key: string, seconds: number) => Promise.resolve(`https://s3.example/${bucket}/${key}?X-Amz-Expires=${seconds}`) } as unknown as ObjectStorage;
const transactions = { run: <T>(work: (tx: Transaction) => Promise<T>) => work({} as Transaction) } as unknown as TransactionRepository;

function setup() {
  const fake = new FakeSlots();
  const slots = fake as unknown as UploadSlotsRepository;
  const receive = new ReceiveUploadUseCase(config, slots, new MarkUploadedUseCase(slots), storage);
  const registration = new RegisterSlotsUseCase(config, slots, clock);
  const service = new SlotsService(config, transactions, slots, new UploadUrlsService(config, storage, clock), receive, registration, clock);
  return { fake, service, registration };
}

const subjects = (messages: OutboxMessage[]) => messages.map((entry) => entry.contract.subject);

describe('SlotsService', () => {
  it('gives a presigned URL to each file to upload and queues one fetch per file given by URL, once', async () => {
    const { fake, service } = setup();
    const command = {
      orderId: '7',
      accountId: '3',
      mode: 'live' as const,
      files: [
        { fileId: '71', fileName: 'a.png', objectKey: '3/7/inputs/71/a.png' },
        { fileId: '72', fileName: 'b.png', objectKey: '3/7/inputs/72/b.png', sourceUrl: 'https://images.example/b.png' },
      ],
    };
    const first = await service.register(command);
    const again = await service.register(command);
    expect(Object.keys(first.urls)).toEqual(['71']);
    expect(first.urls['71']).toBe('https://s3.example/cp-inputs/3/7/inputs/71/a.png?X-Amz-Expires=900');
    expect(again).toEqual(first);
    expect(subjects(fake.published)).toEqual([JobSubjects.uploadsFetch]);
    // Held to the account's share of fetches, named by its file (the fetch's outcome frees it).
    expect(fake.published[0].share).toEqual({ key: `${JobSubjects.uploadsFetch}:3`, order: '7', unit: '72', limit: 2 });
  });

  it('hands test keys a signed URL of the gateway sink instead of storage, and asks v2 validity when given', async () => {
    const { service } = setup();
    await service.register({ orderId: '8', accountId: '3', mode: 'test', files: [{ fileId: '81', fileName: 'a.png', objectKey: 'k' }] });
    const { urls } = await service.uploadUrls({ orderId: '8', fileIds: ['81'], validitySeconds: 3600 });
    expect(urls['81']).toMatch(/^https:\/\/api\.example\/api\/v2\/test-uploads\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const claims = verifyUploadToken(urls['81'].split('/').at(-1) ?? '', secret, clock.nowMs());
    expect(claims).toEqual({ orderId: '8', fileId: '81', expiresAt: clock.nowMs() + 3600_000 });
  });

  it('records a test upload once, for the file its token names, and refuses bad or expired tokens', async () => {
    const { fake, service } = setup();
    await service.register({ orderId: '9', accountId: '3', mode: 'test', files: [{ fileId: '91', fileName: 'a.png', objectKey: 'k' }] });
    const token = signUploadToken({ orderId: '9', fileId: '91', expiresAt: clock.nowMs() + 60_000 }, secret);
    await expect(service.recordTestUpload({ token, size: 42 })).resolves.toEqual({ fileId: '91', size: 42 });
    // A replay answers what the first upload recorded.
    await expect(service.recordTestUpload({ token, size: 43 })).resolves.toEqual({ fileId: '91', size: 42 });
    expect(subjects(fake.published)).toEqual([EventSubjects.fileUploaded]);
    const codeOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => (error instanceof DomainException ? error.code : error));
    expect(await codeOf(service.recordTestUpload({ token: `${token}x`, size: 1 }))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    const expired = signUploadToken({ orderId: '9', fileId: '91', expiresAt: clock.nowMs() - 1 }, secret);
    expect(await codeOf(service.recordTestUpload({ token: expired, size: 1 }))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    const otherOrder = signUploadToken({ orderId: '10', fileId: '91', expiresAt: clock.nowMs() + 60_000 }, secret);
    expect(await codeOf(service.recordTestUpload({ token: otherOrder, size: 1 }))).toBe(ErrorCode.RESOURCE_NOT_FOUND);
  });

  it('holds a test upload to the input limit of its order type, as a live upload: over it the order fails with the worker\'s code', async () => {
    const { fake, service } = setup();
    await service.register({ orderId: '11', accountId: '3', mode: 'test', orderType: 'watermarkEmbed', files: [{ fileId: '111', fileName: 'a.png', objectKey: 'k' }] });
    const token = signUploadToken({ orderId: '11', fileId: '111', expiresAt: clock.nowMs() + 60_000 }, secret);
    await expect(service.recordTestUpload({ token, size: 1001 })).resolves.toEqual({ fileId: '111', size: 1001 });
    expect(fake.rows.get('111')?.status).toBe('failed');
    expect(fake.published.map((entry) => [entry.contract.subject, entry.payload])).toEqual([[EventSubjects.fileFailed, { orderId: '11', fileId: '111', code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE }]]);
  });
  describe('registrations from several places (the call after the commit, a replay, the orders sweep of lost calls)', () => {
    const command = {
      orderId: '12',
      accountId: '3',
      mode: 'live' as const,
      orderType: 'antiAi' as const,
      files: [
        { fileId: '121', fileName: 'a.png', objectKey: '3/12/inputs/121/a.png' },
        { fileId: '122', fileName: 'b.png', objectKey: '3/12/inputs/122/b.png', sourceUrl: 'https://images.example/b.png' },
      ],
    };

    it('registers the slots when the call after the commit never came (the orders sweep): the next read gets the upload URLs, the URL file is fetched', async () => {
      const { fake, service, registration } = setup();
      // Orders was killed (or the call timed out) after the commit: before the job, uploads knows nothing.
      expect(await service.uploadUrls({ orderId: '12', fileIds: ['121'] })).toEqual({ urls: {} });
      await registration.execute({} as Transaction, command);
      expect(await service.uploadUrls({ orderId: '12', fileIds: ['121'] })).toEqual({ urls: { '121': 'https://s3.example/cp-inputs/3/12/inputs/121/a.png?X-Amz-Expires=900' } });
      expect(fake.published.map((entry) => [entry.contract.subject, entry.payload])).toEqual([[JobSubjects.uploadsFetch, { fileId: '122' }]]);
      expect([...fake.rows.values()].map((row) => [row.fileId, row.status, row.orderType])).toEqual([
        ['121', 'awaiting', 'antiAi'],
        ['122', 'fetching', 'antiAi'],
      ]);
    });

    it('registers nothing twice with the call, whichever comes first: one slot per file, one fetch', async () => {
      const callFirst = setup();
      const urls = await callFirst.service.register(command);
      expect(await callFirst.registration.execute({} as Transaction, command)).toEqual([]);
      expect(subjects(callFirst.fake.published)).toEqual([JobSubjects.uploadsFetch]);

      const jobFirst = setup();
      await jobFirst.registration.execute({} as Transaction, command);
      expect(await jobFirst.service.register(command)).toEqual(urls);
      expect(await jobFirst.registration.execute({} as Transaction, command)).toEqual([]);
      expect(subjects(jobFirst.fake.published)).toEqual([JobSubjects.uploadsFetch]);
      expect(jobFirst.fake.rows.size).toBe(2);
    });

    it('answers which files have a slot, for the orders sweep', async () => {
      const { service } = setup();
      await service.register(command);
      expect(await service.knownSlots({ fileIds: ['121', '999', '122'] })).toEqual({ fileIds: ['121', '122'] });
      expect(await service.knownSlots({ fileIds: [] })).toEqual({ fileIds: [] });
    });

    it('a registration that comes after the order\'s upload window registers nothing and fetches nothing (the order has failed)', async () => {
      const late = setup();
      const createdAt = new Date(clock.nowMs() - 12 * 3600_000);
      expect(await late.registration.execute({} as Transaction, { ...command, orderCreatedAt: createdAt.toISOString() })).toEqual([]);
      expect([late.fake.rows.size, late.fake.published.length]).toEqual([0, 0]);
      const inTime = setup();
      expect(await inTime.registration.execute({} as Transaction, { ...command, orderCreatedAt: new Date(createdAt.getTime() + 1).toISOString() })).toHaveLength(2);
    });
  });
});

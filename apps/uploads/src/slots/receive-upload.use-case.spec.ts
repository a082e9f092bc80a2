// What becomes of an object that lands in a slot's place: recorded, or refused (over its order type's input
// limit, or for a failed slot) and deleted. A fake slot repository with the real one's rules (no database).
import { EventSubjects, OrderFailureCode, OrderType, OutboxMessage } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { UploadsConfig } from '../uploads.config';
import { MarkUploadedUseCase } from './mark-uploaded.use-case';
import { inputLimitOf, ReceiveUploadUseCase } from './receive-upload.use-case';
import { UploadSlotEntity, UploadSlotStatus } from './upload-slot.entity';
import { UploadedSlot, UploadSlotsRepository } from './upload-slots.repository';

class FakeSlots {
  readonly rows = new Map<string, UploadSlotEntity>();
  readonly published: OutboxMessage[] = [];

  add(fileId: string, overrides: Partial<UploadSlotEntity> = {}): void {
    const row = { fileId, orderId: '70', accountId: '3', mode: 'live', orderType: 'watermarkEmbed', bucket: 'cp-inputs', objectKey: `3/70/inputs/${fileId}/a.png`, status: 'awaiting' as UploadSlotStatus, size: null, traceparent: null, ...overrides };
    this.rows.set(fileId, row as UploadSlotEntity);
  }

  lock(_tx: Transaction, fileId: string): Promise<UploadSlotEntity | null> {
    return Promise.resolve(this.rows.get(fileId) ?? null);
  }

  markUploaded(_tx: Transaction, fileId: string, size: number): Promise<UploadedSlot | null> {
    const row = this.rows.get(fileId);
    if (!row || (row.status !== 'awaiting' && row.status !== 'fetching')) return Promise.resolve(null);
    Object.assign(row, { status: 'uploaded', size: String(size) });
    return Promise.resolve({ orderId: row.orderId, traceparent: null });
  }

  markRefused(_tx: Transaction, fileId: string, size: number): Promise<boolean> {
    const row = this.rows.get(fileId);
    if (!row || (row.status !== 'awaiting' && row.status !== 'fetching')) return Promise.resolve(false);
    Object.assign(row, { status: 'failed', size: String(size) });
    return Promise.resolve(true);
  }

  publish(_tx: Transaction, messages: readonly OutboxMessage[]): Promise<void> {
    this.published.push(...messages);
    return Promise.resolve();
  }
}

const config = { inputLimits: { watermark: 1000, aiDetection: 500 } } as unknown as UploadsConfig;
const tx = {} as Transaction;

function setup() {
  const fake = new FakeSlots();
  const removed: string[] = [];
  const storage = { remove: (bucket: string, keys: string[]) => (removed.push(...keys.map((key) => `${bucket}/${key}`)), Promise.resolve()) } as unknown as ObjectStorage;
  const slots = fake as unknown as UploadSlotsRepository;
  return { fake, removed, receive: new ReceiveUploadUseCase(config, slots, new MarkUploadedUseCase(slots), storage) };
}

const failures = (messages: OutboxMessage[]) => messages.filter((entry) => entry.contract.subject === EventSubjects.fileFailed).map((entry) => entry.payload);

describe('ReceiveUploadUseCase', () => {
  it('records an upload within the limit of its order type and deletes nothing', async () => {
    const { fake, removed, receive } = setup();
    fake.add('71');
    const received = await receive.execute(tx, '71', 1000);
    await receive.discard(received);
    expect(received).toEqual({ outcome: 'recorded', recordedSize: 1000, discard: null });
    expect(fake.published.map((entry) => entry.contract.subject)).toEqual([EventSubjects.fileUploaded]);
    expect(removed).toEqual([]);
  });

  it('refuses an upload over the limit: the slot fails, orders hears the worker\'s code once, and the object is deleted', async () => {
    const { fake, removed, receive } = setup();
    fake.add('72');
    const received = await receive.execute(tx, '72', 1001);
    await receive.discard(received);
    expect(received.outcome).toBe('refused');
    expect(fake.rows.get('72')?.status).toBe('failed');
    expect(failures(fake.published)).toEqual([{ orderId: '70', fileId: '72', code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE }]);
    expect(removed).toEqual(['cp-inputs/3/70/inputs/72/a.png']);

    // The same notification again (redelivered after a failed delete): deleted again, announced once.
    await receive.discard(await receive.execute(tx, '72', 1001));
    expect(failures(fake.published)).toHaveLength(1);
    expect(removed).toHaveLength(2);
  });

  it('deletes any later object for a failed slot (a second PUT to its still-valid URL), whatever its size', async () => {
    const { fake, removed, receive } = setup();
    fake.add('73', { status: 'failed', size: '5000' });
    const received = await receive.execute(tx, '73', 10);
    await receive.discard(received);
    expect(received).toEqual({ outcome: 'notWaiting', recordedSize: 5000, discard: { bucket: 'cp-inputs', key: '3/70/inputs/73/a.png' } });
    expect(removed).toEqual(['cp-inputs/3/70/inputs/73/a.png']);
    expect(fake.published).toEqual([]);
  });

  it('leaves a replaced object of an uploaded slot alone (its order may be processing it)', async () => {
    const { fake, removed, receive } = setup();
    fake.add('74', { status: 'uploaded', size: '10' });
    const received = await receive.execute(tx, '74', 5000);
    await receive.discard(received);
    expect(received).toEqual({ outcome: 'notWaiting', recordedSize: 10, discard: null });
    expect(removed).toEqual([]);
  });

  it('holds AI detection uploads to the ai-detector\'s limit and code; test slots have no object to delete', async () => {
    const { fake, removed, receive } = setup();
    fake.add('75', { orderType: 'aiDetection' });
    fake.add('76', { mode: 'test' });
    await receive.discard(await receive.execute(tx, '75', 501));
    const test = await receive.execute(tx, '76', 1001);
    await receive.discard(test);
    expect(failures(fake.published)).toEqual([
      { orderId: '70', fileId: '75', code: OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE },
      { orderId: '70', fileId: '76', code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE },
    ]);
    expect(test.discard).toBeNull();
    expect(removed).toEqual(['cp-inputs/3/70/inputs/75/a.png']);
  });

  it('gives every order type its worker\'s limit, and a slot without a type the largest one', () => {
    const limits = { watermark: 1000, aiDetection: 500 };
    const of = (orderType: OrderType | null) => inputLimitOf({ orderType }, limits);
    expect([of('watermarkEmbed'), of('watermarkExtract'), of('antiAi')]).toEqual(Array(3).fill({ maxBytes: 1000, code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE }));
    expect(of('aiDetection')).toEqual({ maxBytes: 500, code: OrderFailureCode.AI_DETECTION_FILE_TOO_LARGE });
    expect(inputLimitOf({ orderType: null }, { watermark: 100, aiDetection: 300 })).toEqual({ maxBytes: 300, code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE });
  });

  it('ignores an object of no slot', async () => {
    const { fake, receive } = setup();
    expect(await receive.execute(tx, '404', 1)).toEqual({ outcome: 'unknown', recordedSize: null, discard: null });
    expect(fake.published).toEqual([]);
  });
});

// A failed order's slots: closed when the order never had all its files (and their inputs deleted), left as they
// are when it had them all. A fake slot repository with the real one's rules (no database); the real statements
// are in close-failed-order-slots.integration.spec.ts.
import { Transaction } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { UploadSlotEntity, UploadSlotStatus } from '../slots/upload-slot.entity';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { CLOSED_UPLOADED_REASON, CLOSED_WAITING_REASON, CloseFailedOrderSlotsUseCase } from './close-failed-order-slots.use-case';

class FakeSlots {
  readonly rows = new Map<string, UploadSlotEntity>();

  add(fileId: string, status: UploadSlotStatus, overrides: Partial<UploadSlotEntity> = {}): void {
    const row = { fileId, orderId: '70', accountId: '3', mode: 'live', orderType: 'watermarkEmbed', bucket: 'cp-inputs', objectKey: `3/70/inputs/${fileId}/a.png`, status, failureReason: null, ...overrides };
    this.rows.set(fileId, row as UploadSlotEntity);
  }

  lockOfOrder(_tx: Transaction, orderId: string): Promise<UploadSlotEntity[]> {
    return Promise.resolve([...this.rows.values()].filter((row) => row.orderId === orderId).map((row) => ({ ...row })));
  }

  close(_tx: Transaction, fileIds: readonly string[], reason: string): Promise<number> {
    const open = fileIds.map((fileId) => this.rows.get(fileId)).filter((row): row is UploadSlotEntity => row !== undefined && row.status !== 'failed');
    open.forEach((row) => Object.assign(row, { status: 'failed', failureReason: reason }));
    return Promise.resolve(open.length);
  }

  /** Orders whose fetches were freed all at once (the order failed). */
  readonly releasedOrders: string[] = [];

  releaseFetches(_tx: Transaction, orderId: string, fileIds?: readonly string[]): Promise<void> {
    if (fileIds === undefined) {
      this.releasedOrders.push(orderId);
    }
    return Promise.resolve();
  }

  closedObjectsOfOrder(orderId: string): Promise<Array<{ bucket: string; key: string }>> {
    return Promise.resolve([...this.rows.values()].filter((row) => row.orderId === orderId && row.status === 'failed' && row.mode === 'live').map((row) => ({ bucket: row.bucket, key: row.objectKey })));
  }
}

const tx = {} as Transaction;

function setup(keep: (key: string) => boolean = () => false) {
  const fake = new FakeSlots();
  const removed: string[] = [];
  const storage = {
    removeEach: (bucket: string, keys: string[]) => {
      removed.push(...keys.filter((key) => !keep(key)).map((key) => `${bucket}/${key}`));
      return Promise.resolve(keys.filter(keep));
    },
  } as unknown as ObjectStorage;
  return { fake, removed, close: new CloseFailedOrderSlotsUseCase(fake as unknown as UploadSlotsRepository, storage) };
}

const statuses = (fake: FakeSlots) => [...fake.rows.values()].map((row) => [row.fileId, row.status, row.failureReason]);

describe('CloseFailedOrderSlotsUseCase', () => {
  it('closes the waiting slots of an order that never had all its files and deletes the inputs it had', async () => {
    const { fake, removed, close } = setup();
    fake.add('71', 'uploaded');
    fake.add('72', 'awaiting');
    fake.add('73', 'fetching');
    fake.add('74', 'uploaded', { orderId: '80', objectKey: '3/80/inputs/74/a.png' });

    expect(await close.execute(tx, '70')).toEqual({ closedWaiting: 2, closedUploaded: 1 });
    expect(await close.deleteInputs('70')).toBe(3);
    // Its fetches still held back by the account's share are never sent.
    expect(fake.releasedOrders).toEqual(['70']);

    expect(statuses(fake)).toEqual([
      ['71', 'failed', CLOSED_UPLOADED_REASON],
      ['72', 'failed', CLOSED_WAITING_REASON],
      ['73', 'failed', CLOSED_WAITING_REASON],
      ['74', 'uploaded', null],
    ]);
    expect(removed).toEqual(['cp-inputs/3/70/inputs/71/a.png', 'cp-inputs/3/70/inputs/72/a.png', 'cp-inputs/3/70/inputs/73/a.png']);
  });

  it('counts a slot that already failed (a refused upload, a fetch that failed) as a file the order never had', async () => {
    const { fake, removed, close } = setup();
    fake.add('71', 'uploaded');
    fake.add('72', 'failed', { failureReason: 'too large' });

    expect(await close.execute(tx, '70')).toEqual({ closedWaiting: 0, closedUploaded: 1 });
    await close.deleteInputs('70');
    expect(statuses(fake)).toEqual([
      ['71', 'failed', CLOSED_UPLOADED_REASON],
      ['72', 'failed', 'too large'],
    ]);
    expect(removed.sort()).toEqual(['cp-inputs/3/70/inputs/71/a.png', 'cp-inputs/3/70/inputs/72/a.png']);
  });

  it('keeps the slots and inputs of an order whose files were all in (a job may still read them)', async () => {
    const { fake, removed, close } = setup();
    fake.add('71', 'uploaded');
    fake.add('72', 'uploaded');

    expect(await close.execute(tx, '70')).toEqual({ closedWaiting: 0, closedUploaded: 0 });
    expect(await close.deleteInputs('70')).toBe(0);
    expect(statuses(fake)).toEqual([
      ['71', 'uploaded', null],
      ['72', 'uploaded', null],
    ]);
    expect(removed).toEqual([]);
  });

  it('closes test slots but deletes nothing for them (they have no object)', async () => {
    const { fake, removed, close } = setup();
    fake.add('71', 'uploaded', { mode: 'test' });
    fake.add('72', 'awaiting', { mode: 'test' });

    expect(await close.execute(tx, '70')).toEqual({ closedWaiting: 1, closedUploaded: 1 });
    expect(await close.deleteInputs('70')).toBe(0);
    expect(removed).toEqual([]);
  });

  it('is harmless a second time, and a delete storage refused is tried again and reported', async () => {
    let refuse = true;
    const { fake, removed, close } = setup((key) => refuse && key.endsWith('/71/a.png'));
    fake.add('71', 'uploaded');
    fake.add('72', 'awaiting');

    await close.execute(tx, '70');
    await expect(close.deleteInputs('70')).rejects.toThrow('storage did not delete 1 input(s) of failed order 70');

    // The redelivery: the inbox skips the closing (here it finds nothing left to close), the deletion runs again.
    refuse = false;
    expect(await close.execute(tx, '70')).toEqual({ closedWaiting: 0, closedUploaded: 0 });
    expect(await close.deleteInputs('70')).toBe(2);
    expect(removed).toEqual(['cp-inputs/3/70/inputs/72/a.png', 'cp-inputs/3/70/inputs/71/a.png', 'cp-inputs/3/70/inputs/72/a.png']);
  });

  it('does nothing for an order it has no slot of', async () => {
    const { removed, close } = setup();
    expect(await close.execute(tx, '99')).toEqual({ closedWaiting: 0, closedUploaded: 0 });
    expect(await close.deleteInputs('99')).toBe(0);
    expect(removed).toEqual([]);
  });
});

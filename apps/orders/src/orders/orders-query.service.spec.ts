// The batched read (orders.getMany) with fake collaborators: each read answered as the single read would be,
// orders beyond one reply's size budget (measured on the views themselves) answered `alone`, so the gateway asks
// for them one by one, and a view no reply can carry refused with a code.
import { ManualClock } from '@cp/clock';
import { BatchItemResult, CallerContext, DomainException, ErrorCode, GetOrderQuery, WatermarkOrderView } from '@cp/contracts';
import { Order, OrderFileState, OrderOutputState, OrderState } from '../domain/order';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from './object-urls.service';
import { OrderAccessService } from './order-access.service';
import { ORDER_READS_REPLY_BYTES, ORDER_VIEW_MAX_BYTES, OrdersQueryService } from './orders-query.service';
import { UploadsClient } from './uploads.client';

const caller: CallerContext = { accountId: '7', mode: 'live', keyId: '1', plan: 'pro' } as CallerContext;

/** An order with `outputs` outputs whose texts are `textLength` long (only what the read looks at). */
function order(id: string, outputs: number, textLength: number): Order {
  const file = { id: `${id}0`, fileName: 'photo.png' } as OrderFileState;
  const made = Array.from({ length: outputs }, (_, index) => ({ fileId: `${id}0-${index}`, watermarkText: 'x'.repeat(textLength) }) as OrderOutputState);
  return new Order({ id, type: 'watermarkEmbed', typeResult: null } as OrderState, [file], made);
}

/**
 * An aiDetection order of one small file whose stored result (`typeResult`) carries `bytes` of evidence text: what
 * the order's files and outputs do not show.
 */
function analysed(id: string, bytes: number): Order {
  const file = { id: `${id}0`, fileName: 'photo.png' } as OrderFileState;
  const typeResult = { images: { [`${id}0`]: { evidence: [{ signal: 'c2pa', description: 'x'.repeat(bytes) }] } } };
  return new Order({ id, type: 'aiDetection', typeResult } as unknown as OrderState, [file], []);
}

function service(found: Array<Order | null>): OrdersQueryService {
  const access = {
    owned: (_caller: CallerContext, orderId: string) => {
      const read = found.find((candidate) => candidate?.id === orderId);
      return read ? Promise.resolve(read) : Promise.reject(new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `no order ${orderId}`));
    },
    ownedMany: (reads: GetOrderQuery[]) =>
      Promise.resolve(reads.map((read, index) => found[index] ?? new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `no order ${read.orderId}`))),
  } as unknown as OrderAccessService;
  // Like the real views: the outputs' texts and the type's stored result go into the answer.
  const view = {
    v3View: (read: Order) => ({ orderId: read.id, outputs: read.outputs.map((output) => output.watermarkText), result: read.state.typeResult }) as unknown as WatermarkOrderView,
    linkedObjects: () => [],
  };
  const types = { of: () => view } as unknown as OrderTypeRegistry;
  const uploads = { urlsFor: () => Promise.resolve({}) } as unknown as UploadsClient;
  const urls = { for: () => Promise.resolve({}) } as unknown as ObjectUrlsService;
  return new OrdersQueryService(access, types, uploads, urls, new ManualClock(new Date('2026-11-01T00:00:00Z')));
}

const reads = (count: number): GetOrderQuery[] => Array.from({ length: count }, (_, index) => ({ caller, orderId: String(index + 1) }));
const idOf = (result: BatchItemResult<WatermarkOrderView>): string | undefined => (result.ok ? result.value.orderId : undefined);

describe('OrdersQueryService.getMany', () => {
  it('answers each read with its view or its code, in order', async () => {
    const { results } = await service([order('1', 2, 10), null, order('3', 1, 10)]).getMany(reads(3));
    expect(results.map((result) => (result.ok ? idOf(result) : result))).toEqual(['1', { ok: false, code: ErrorCode.RESOURCE_NOT_FOUND }, '3']);
  });

  it('answers orders beyond the reply budget alone; the first always in the batch, smaller ones after still in it', async () => {
    // 90 outputs of 2000 characters: over a third of the budget apiece, so the third large one does not fit.
    const large = (id: string) => order(id, 90, 2000);
    expect(3 * 90 * 2000).toBeGreaterThan(ORDER_READS_REPLY_BYTES);
    const { results } = await service([large('1'), order('2', 1, 10), large('3'), large('4'), order('5', 1, 10)]).getMany(reads(5));
    expect(results.map((result) => (result.ok ? idOf(result) : result))).toEqual(['1', '2', '3', { ok: false, alone: true }, '5']);
  });

  it("counts what the reply carries, not only the files: an aiDetection order's stored evidence", async () => {
    // One small file each, and 300 KB of evidence: two of them do not fit in one reply.
    const { results } = await service([analysed('1', 300_000), analysed('2', 300_000), order('3', 1, 10)]).getMany(reads(3));
    expect(results.map((result) => (result.ok ? idOf(result) : result))).toEqual(['1', { ok: false, alone: true }, '3']);
  });

  it('a single order larger than the budget is still answered (it is the first)', async () => {
    const { results } = await service([analysed('1', 800_000)]).getMany(reads(1));
    expect(results.map(idOf)).toEqual(['1']);
  });

  it('a view larger than any reply can carry is refused with a code, in a batch and alone; the other reads are answered', async () => {
    const huge = analysed('1', ORDER_VIEW_MAX_BYTES);
    const { results } = await service([huge, order('2', 1, 10)]).getMany(reads(2));
    expect(results.map((result) => (result.ok ? idOf(result) : result))).toEqual([{ ok: false, code: ErrorCode.SERVER_INTERNAL_ERROR }, '2']);
    await expect(service([huge]).get(caller, '1')).rejects.toMatchObject({ code: ErrorCode.SERVER_INTERNAL_ERROR });
    await expect(service([analysed('1', 800_000)]).get(caller, '1')).resolves.toMatchObject({ orderId: '1' });
  });
});

// The batched read (orders.getMany) with fake collaborators: each read answered as the single read would be,
// and orders beyond one reply's size budget answered `alone`, so the gateway asks for them one by one.
import { ManualClock } from '@cp/clock';
import { CallerContext, DomainException, ErrorCode, GetOrderQuery, WatermarkOrderView } from '@cp/contracts';
import { Order, OrderFileState, OrderOutputState, OrderState } from '../domain/order';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ObjectUrlsService } from './object-urls.service';
import { OrderAccessService } from './order-access.service';
import { ORDER_READS_REPLY_BYTES, OrdersQueryService } from './orders-query.service';
import { UploadsClient } from './uploads.client';

const caller: CallerContext = { accountId: '7', mode: 'live', keyId: '1', plan: 'pro' } as CallerContext;

/** An order with `outputs` outputs whose texts are `textLength` long (only what the read looks at). */
function order(id: string, outputs: number, textLength: number): Order {
  const file = { id: `${id}0`, fileName: 'photo.png' } as OrderFileState;
  const made = Array.from({ length: outputs }, (_, index) => ({ fileId: `${id}0-${index}`, watermarkText: 'x'.repeat(textLength) }) as OrderOutputState);
  return new Order({ id, type: 'watermarkEmbed' } as OrderState, [file], made);
}

function service(found: Array<Order | null>): OrdersQueryService {
  const access = {
    ownedMany: (reads: GetOrderQuery[]) =>
      Promise.resolve(reads.map((read, index) => found[index] ?? new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `no order ${read.orderId}`))),
  } as unknown as OrderAccessService;
  const view = { v3View: (read: Order) => ({ orderId: read.id }) as WatermarkOrderView, linkedObjects: () => [] };
  const types = { of: () => view } as unknown as OrderTypeRegistry;
  const uploads = { urlsFor: () => Promise.resolve({}) } as unknown as UploadsClient;
  const urls = { for: () => Promise.resolve({}) } as unknown as ObjectUrlsService;
  return new OrdersQueryService(access, types, uploads, urls, new ManualClock(new Date('2026-11-01T00:00:00Z')));
}

const reads = (count: number): GetOrderQuery[] => Array.from({ length: count }, (_, index) => ({ caller, orderId: String(index + 1) }));

describe('OrdersQueryService.getMany', () => {
  it('answers each read with its view or its code, in order', async () => {
    const { results } = await service([order('1', 2, 10), null, order('3', 1, 10)]).getMany(reads(3));
    expect(results).toEqual([
      { ok: true, value: { orderId: '1' } },
      { ok: false, code: ErrorCode.RESOURCE_NOT_FOUND },
      { ok: true, value: { orderId: '3' } },
    ]);
  });

  it('answers orders beyond the reply budget alone; the first always in the batch', async () => {
    // 90 outputs of 1000 characters: over half the budget apiece (3 bytes a character), so the second large one does not fit.
    const large = (id: string) => order(id, 90, 1000);
    expect(2 * 90 * 1000 * 3).toBeGreaterThan(ORDER_READS_REPLY_BYTES);
    expect(90 * 1000 * 3).toBeLessThan(ORDER_READS_REPLY_BYTES / 2 + 10_000);
    const { results } = await service([large('1'), order('2', 1, 10), large('3'), order('4', 1, 10)]).getMany(reads(4));
    expect(results).toEqual([
      { ok: true, value: { orderId: '1' } },
      { ok: true, value: { orderId: '2' } },
      { ok: false, alone: true },
      { ok: false, alone: true },
    ]);
  });

  it('a single order larger than the budget is still answered (it is the first)', async () => {
    const { results } = await service([order('1', 1000, 1000)]).getMany(reads(1));
    expect(results).toEqual([{ ok: true, value: { orderId: '1' } }]);
  });
});

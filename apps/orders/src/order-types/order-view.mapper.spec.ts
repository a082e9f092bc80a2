// Client review: a failed v3 order said nothing about why (spec 2.1 has no such field). Every way an order
// reaches `failed` is taken here, and each view names a public code; an order that never failed has none.
import { OrderFailureCode, V2_RETIREMENT_AT } from '@cp/contracts';
import { Order, OrderFileState, OrderOutputState, OrderState } from '../domain/order';
import { toOrderView } from './order-view.mapper';

const CREATED = new Date('2026-10-01T00:00:00.000Z');
const HOUR = 3600_000;
const at = (hours: number): Date => new Date(CREATED.getTime() + hours * HOUR);

function order(overrides: Partial<OrderState> = {}): Order {
  const files: OrderFileState[] = [{ id: '1', position: 1, role: 'input', fileName: 'f1.png', sourceUrl: null, mediaKind: 'image', status: 'awaiting_upload', size: null }];
  const outputs: OrderOutputState[] = [
    { fileId: '1-1', inputFileId: '1', inputPosition: 0, outputIndex: 0, watermarkText: 't', status: 'pending', mediaKind: 'image', objectKey: null, failureCode: null },
  ];
  return new Order(
    {
      id: '42',
      accountId: '7',
      mode: 'live',
      type: 'watermarkEmbed',
      apiVersion: 'v3',
      status: 'pending',
      processingDelayed: false,
      failureCode: null,
      creditsCharged: 1,
      packageKey: null,
      options: null,
      typeResult: null,
      expiresAt: at(720),
      completedAt: null,
      failedAt: null,
      createdAt: CREATED,
      updatedAt: CREATED,
      ...overrides,
    },
    files,
    outputs,
  );
}

function inProgress(): Order {
  const started = order();
  started.fileUploaded('1', 10, at(1));
  started.startProcessing(at(1));
  return started;
}

describe('toOrderView: a failed order says why', () => {
  const paths: Array<[string, () => Order, string]> = [
    ['a file that could not be obtained (upload refused, URL fetch failed)', () => withEvents(order(), (o) => o.fileFailed('1', OrderFailureCode.WATERMARK_SOURCE_URL_FAILED, at(1))), 'WATERMARK_SOURCE_URL_FAILED'],
    ['an output that failed for good', () => withEvents(inProgress(), (o) => o.outputFailed('1-1', OrderFailureCode.WATERMARK_FILE_INVALID, at(2))), 'WATERMARK_FILE_INVALID'],
    ['the 12-hour upload window', () => withEvents(order(), (o) => o.uploadWindowClosed(at(13), 12 * HOUR)), 'ORDER_TIMEOUT'],
    ['no progress for too long', () => withEvents(inProgress(), (o) => o.processingTimedOut(at(10), 6 * HOUR)), 'PROCESSING_TIMEOUT'],
    ['a pending v2 order at the retirement', () => withEvents(order({ apiVersion: 'v2' }), (o) => o.v2Retired(V2_RETIREMENT_AT)), 'WATERMARK_V2_API_SUNSET'],
    ['a v2 order whose files arrive after the retirement', () => withEvents(order({ apiVersion: 'v2', createdAt: V2_RETIREMENT_AT, expiresAt: new Date(V2_RETIREMENT_AT.getTime() + 720 * HOUR) }), (o) => o.startProcessing(V2_RETIREMENT_AT)), 'WATERMARK_V2_API_SUNSET'],
    ['a code a worker sent that is not public', () => withEvents(inProgress(), (o) => o.outputFailed('1-1', 'SOMETHING_INTERNAL', at(2))), 'PROCESSING_ERROR'],
  ];

  it.each(paths)('%s: failed, with its public code and fixed guidance', (_name, make, code) => {
    const view = toOrderView(make(), {});
    expect([view.status, view.failure?.errorCode, typeof view.failure?.errorMessage]).toEqual(['failed', code, 'string']);
  });

  it('a failed row without a code (written before codes were recorded) still says PROCESSING_ERROR', () => {
    expect(toOrderView(order({ status: 'failed', failureCode: null }), {}).failure?.errorCode).toBe('PROCESSING_ERROR');
  });

  it('a failed order that later expires keeps its reason', () => {
    const failed = withEvents(order(), (o) => o.uploadWindowClosed(at(13), 12 * HOUR));
    failed.expire(at(721));
    expect([failed.status, toOrderView(failed, {}).failure?.errorCode]).toEqual(['expired', 'ORDER_TIMEOUT']);
  });

  it('pending, in progress, complete and expired-without-failing orders have failure null', () => {
    const expired = order();
    expired.expire(at(721));
    for (const each of [order(), inProgress(), order({ status: 'complete', completedAt: at(2) }), expired]) {
      expect([each.status, toOrderView(each, {}).failure]).toEqual([each.status, null]);
    }
  });
});

/** Runs a transition and checks that it did something (a transition refused would leave the order as it was). */
function withEvents(subject: Order, transition: (order: Order) => unknown[]): Order {
  expect(transition(subject).length).toBeGreaterThan(0);
  return subject;
}

// Extract orders without a database: the outcome kept in the order's type result, the refund of results that
// deliver nothing (spec 3.1/4.2), and the views, webhook and report fields read from it.
import { CreateExtractOrderDto, DetectionStatus, EventSubjects, ExaminedExtractFiles, ExtractCompletedEvent, OutboxMessage, ReportContextFile } from '@cp/contracts';
import { Order } from '../../domain/order';
import { ProcessingContext } from '../order-type-definition';
import { extractOrderRules } from './extract-order.rules';
import { extractResultOf, WatermarkExtractOrderType } from './watermark-extract.order-type';

const type = new WatermarkExtractOrderType();
const context: ProcessingContext = { now: new Date('2026-11-01T00:00:00.000Z'), buckets: { inputs: 'in', outputs: 'out' } };

/** A live extract order made by the creation rules, its two files in and its processing started. */
function processing(): Order {
  const rules = extractOrderRules({ file: { fileName: 'inspected.png', originalFile: { fileName: 'original.png' } } } as CreateExtractOrderDto);
  const order = Order.create(
    { id: '9', accountId: '3', mode: 'live', type: rules.type, apiVersion: 'v3', creditsCharged: rules.credits, options: null, expiresAt: new Date(context.now.getTime() + 3600_000), createdAt: context.now },
    rules.files.map((file, position) => ({ ...file, id: String(position + 1) })),
    () => [],
  );
  order.files.forEach((file) => order.fileUploaded(file.id, 10, context.now));
  order.startProcessing(context.now);
  return order;
}

const EXAMINED: ExaminedExtractFiles = { original: { sha256: 'a'.repeat(64), size: 1200 }, inspected: { sha256: 'b'.repeat(64), size: 900 } };

/** The files as the report context lists them before the type adds what it knows. */
const INPUTS: ReportContextFile[] = [
  { role: 'inspected', fileName: 'inspected.png', size: 10, bucket: 'in', key: 'k/inspected' },
  { role: 'original', fileName: 'original.png', size: 10, bucket: 'in', key: 'k/original' },
];

function completed(detectionStatus: DetectionStatus, examined: ExaminedExtractFiles | null = EXAMINED): { order: Order; events: OutboxMessage[] } {
  const order = processing();
  const event: ExtractCompletedEvent = {
    orderId: '9',
    detectionStatus,
    reportSupported: detectionStatus === 'detected',
    watermarkText: detectionStatus === 'detected' ? 'mark' : null,
    confidence: 0.9,
    method: 'registration',
    ...(examined ? { examined } : {}),
  };
  const [handler] = type.results;
  return { order, events: handler.apply(order, event, context) };
}

describe('watermark extract orders', () => {
  it.each([
    ['unsupported', true],
    ['error', true],
    ['detected', false],
    ['not_detected', false],
    ['inconclusive', false],
  ] as const)('%s completes the order (not failed), refunded: %s', (detectionStatus, refunded) => {
    const { order, events } = completed(detectionStatus);
    expect(order.status).toBe('complete');
    expect(events.map((entry) => entry.contract.subject)).toEqual([EventSubjects.orderCompleted, EventSubjects.orderStatusChanged]);
    expect(order.takeCreditMovements()).toEqual(refunded ? [{ amount: 1, reference: 'restore:9', reason: `extract ${detectionStatus}` }] : []);
  });

  it('keeps the outcome with the order: the v3 result, the v2 detail, the webhook and the report fields read it', () => {
    const { order } = completed('detected');
    expect(extractResultOf(order)).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'mark' });
    expect(type.v3View(order, {}).result).toEqual(extractResultOf(order));
    expect(type.v2Detail(order)).toEqual({ statusCode: 'detected', extractedWatermarkText: 'mark' });
    expect(type.webhookData(order)).toEqual({ statusCode: 'detected', watermarkFound: true, watermarkInfo: { text: 'mark' } });
    expect(type.reportContext(order, INPUTS)).toEqual({
      result: extractResultOf(order),
      confidence: 0.9,
      method: 'registration',
      evidence: null,
      detectionStatus: 'detected',
      files: [
        { ...INPUTS[0], examined: EXAMINED.inspected },
        { ...INPUTS[1], examined: EXAMINED.original },
      ],
    });
  });

  it('gives the report no examined bytes for a result recorded before the processor sent them', () => {
    const { order } = completed('not_detected', null);
    expect(type.reportContext(order, INPUTS).files).toEqual(INPUTS.map((file) => ({ ...file, examined: null })));
  });

  it('has no result before the processor answered', () => {
    const order = processing();
    expect([extractResultOf(order), type.v3View(order, {}).result, type.reportContext(order, INPUTS).detectionStatus]).toEqual([null, null, null]);
    expect(type.startsOnLastFile()).toBe(true);
  });
});

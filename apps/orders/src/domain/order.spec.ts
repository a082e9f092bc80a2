// The order aggregate against every row of spec 3.1 (no database, no messaging).
import { EventSubjects, OrderCompletedEvent, OrderFailedEvent, OrderStatusChangedEvent, OutboxMessage, V2_RETIREMENT_AT } from '@cp/contracts';
import { Order, OrderFileState, OrderOutputState, OrderState, OUTPUT_PROGRESS_RECORD_MS } from './order';

const CREATED = new Date('2026-10-01T00:00:00.000Z');
const HOUR = 3600_000;
const at = (hours: number): Date => new Date(CREATED.getTime() + hours * HOUR);

function file(id: string, overrides: Partial<OrderFileState> = {}): OrderFileState {
  return { id, position: Number(id), role: 'input', fileName: `f${id}.png`, sourceUrl: null, mediaKind: 'image', status: 'awaiting_upload', size: null, ...overrides };
}

function output(fileId: string, inputFileId: string, overrides: Partial<OrderOutputState> = {}): OrderOutputState {
  return { fileId, inputFileId, inputPosition: 0, outputIndex: 0, watermarkText: 't', status: 'pending', mediaKind: 'image', objectKey: null, failureCode: null, ...overrides };
}

function order(
  overrides: Partial<OrderState> = {},
  files: OrderFileState[] = [file('1')],
  outputs: OrderOutputState[] = [output('1-1', '1'), output('1-2', '1', { outputIndex: 1 })],
): Order {
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
      creditsCharged: 2,
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

const subjects = (events: OutboxMessage[]): string[] => events.map((event) => event.contract.subject);
const payloadOf = <T>(events: OutboxMessage[], subject: string): T => events.find((event) => event.contract.subject === subject)?.payload as T;

describe('Order (spec 3.1)', () => {
  describe('creation', () => {
    it('starts pending, charges the live price once and announces the status', () => {
      const created = order();
      const events = created.created('wtr-embed order');
      expect(created.status).toBe('pending');
      expect(subjects(events)).toEqual([EventSubjects.orderStatusChanged]);
      expect(payloadOf<OrderStatusChangedEvent>(events, EventSubjects.orderStatusChanged).status).toBe('pending');
      expect(created.takeCreditMovements()).toEqual([{ amount: -2, reference: 'charge:42', reason: 'wtr-embed order' }]);
    });

    it('Order.create makes a pending order, its files awaiting upload in their positions, its outputs from the file ids', () => {
      const created = Order.create(
        { id: '42', accountId: '7', mode: 'live', type: 'watermarkEmbed', apiVersion: 'v3', creditsCharged: 2, options: null, expiresAt: at(720), createdAt: CREATED },
        [
          { id: '1', role: 'input', fileName: 'a.png', sourceUrl: null, mediaKind: 'image' },
          { id: '2', role: 'input', fileName: 'b.png', sourceUrl: null, mediaKind: 'image' },
        ],
        (files) => files.map((made) => output(`${made.id}-1`, made.id)),
      );
      expect([created.status, created.state.processingDelayed, created.state.updatedAt, created.state.typeResult]).toEqual(['pending', false, CREATED, null]);
      expect(created.files.map((made) => [made.id, made.position, made.status, made.size])).toEqual([
        ['1', 0, 'awaiting_upload', null],
        ['2', 1, 'awaiting_upload', null],
      ]);
      expect(created.outputs.map((made) => made.fileId)).toEqual(['1-1', '2-1']);
      expect(created.filesAwaitingUpload().map((made) => made.id)).toEqual(['1', '2']);
    });

    it('charges nothing for test orders (creditsCharged 0)', () => {
      const created = order({ mode: 'test', creditsCharged: 0 });
      created.created('wtr-embed order');
      expect(created.takeCreditMovements()).toEqual([]);
    });

    it('a type that starts at once moves to inProgress right after creation', () => {
      const created = order({}, [file('1', { status: 'uploaded' })]);
      created.created('anti-ai order');
      const events = created.startProcessing(at(0));
      expect(created.status).toBe('inProgress');
      expect(payloadOf<OrderStatusChangedEvent>(events, EventSubjects.orderStatusChanged).status).toBe('inProgress');
    });
  });

  describe('starts at once while its files are fetched (anti-AI with URLs)', () => {
    const fetched = () => order({ type: 'antiAi' }, [file('1', { sourceUrl: 'https://images.example/1.png' }), file('2', { sourceUrl: 'https://images.example/2.png' })], [output('1-1', '1'), output('2-1', '2')]);

    it('is inProgress at creation, takes the fetched files, and queues its outputs only once all are in', () => {
      const started = fetched();
      expect(subjects(started.startBeforeFiles(at(0)))).toEqual([EventSubjects.orderStatusChanged]);
      expect(started.status).toBe('inProgress');
      // Its slots are still registered (the files are fetched), but it hands out no upload URL.
      expect([started.waitsForFiles(at(0)), started.acceptsUploads(at(0))]).toEqual([true, false]);
      started.fileUploaded('1', 10, at(0.1));
      expect(started.allFilesUploaded()).toBe(false);
      started.fileUploaded('2', 20, at(0.2));
      expect(started.allFilesUploaded()).toBe(true);
      expect(started.startProcessing(at(0.2))).toEqual([]);
      expect(started.outputs.map((entry) => entry.status)).toEqual(['queued', 'queued']);
      // Once the jobs are out it no longer waits for files.
      expect([started.allFilesUploaded(), started.waitsForFiles(at(0.3))]).toEqual([false, false]);
      expect(started.startBeforeFiles(at(0.3))).toEqual([]);
    });

    it('fails with the fetch code when a file cannot be fetched, credits restored', () => {
      const started = fetched();
      started.startBeforeFiles(at(0));
      const events = started.fileFailed('2', 'WATERMARK_SOURCE_URL_FAILED', at(0.1));
      expect(started.state).toMatchObject({ status: 'failed', failureCode: 'WATERMARK_SOURCE_URL_FAILED' });
      expect(subjects(events)).toContain(EventSubjects.orderFailed);
      expect(started.takeCreditMovements()).toEqual([{ amount: 2, reference: 'restore:42', reason: 'order failed' }]);
    });

    it('offers no download when its results went to the client\'s storage (zero-copy)', () => {
      const delivered = order({ type: 'antiAi', status: 'complete', options: { zeroCopy: true, noDownload: true } }, [file('1', { status: 'uploaded' })], [output('1-1', '1', { status: 'completed' })]);
      expect(delivered.canDownload(at(1))).toBe(false);
      const stored = order({ type: 'antiAi', status: 'complete', options: {} }, [file('1', { status: 'uploaded' })], [output('1-1', '1', { status: 'completed', objectKey: 'k' })]);
      expect(stored.canDownload(at(1))).toBe(true);
    });
  });

  describe('pending → inProgress when all files are uploaded', () => {
    it.each([
      ['embed, one file', [file('1')], ['1'], 'inProgress'],
      ['extract, first of two files', [file('1', { role: 'original' }), file('2', { role: 'inspected' })], ['1'], 'pending'],
      ['extract, both files', [file('1', { role: 'original' }), file('2', { role: 'inspected' })], ['1', '2'], 'inProgress'],
    ] as const)('%s → %s', (_name, files, uploaded, expected) => {
      const target = order({}, files.map((entry) => ({ ...entry })), []);
      const events = uploaded.flatMap((fileId) => target.fileUploaded(fileId, 10, at(1)));
      expect(target.allFilesUploaded()).toBe(expected === 'inProgress');
      events.push(...(target.allFilesUploaded() ? target.startProcessing(at(1)) : []));
      expect(target.status).toBe(expected);
      expect(subjects(events)).toEqual(expected === 'inProgress' ? [EventSubjects.orderStatusChanged] : []);
    });

    it('queues every output when processing starts', () => {
      const target = order();
      target.fileUploaded('1', 10, at(1));
      target.startProcessing(at(1));
      expect(target.outputs.map((entry) => entry.status)).toEqual(['queued', 'queued']);
    });

    it('ignores a file that is unknown or already uploaded', () => {
      const target = order({}, [file('1'), file('2')]);
      expect(target.fileUploaded('9', 1, at(1))).toEqual([]);
      target.fileUploaded('1', 1, at(1));
      expect(target.fileUploaded('1', 1, at(1))).toEqual([]);
      expect(target.status).toBe('pending');
    });
  });

  describe('pending → failed', () => {
    it('12 hours without all uploads: ORDER_TIMEOUT, credits restored', () => {
      const target = order();
      expect(target.uploadWindowClosed(at(11.9), 12 * HOUR)).toEqual([]);
      const events = target.uploadWindowClosed(at(12.1), 12 * HOUR);
      expect(target.status).toBe('failed');
      expect(payloadOf<OrderFailedEvent>(events, EventSubjects.orderFailed).errorCode).toBe('ORDER_TIMEOUT');
      expect(target.takeCreditMovements()).toEqual([{ amount: 2, reference: 'restore:42', reason: 'order failed' }]);
    });

    it('a file that cannot be fetched fails the order with its code', () => {
      const target = order();
      const events = target.fileFailed('1', 'WATERMARK_SOURCE_URL_FAILED', at(1));
      expect(target.status).toBe('failed');
      expect(target.files[0].status).toBe('failed');
      expect(subjects(events)).toEqual([EventSubjects.orderFailed, EventSubjects.orderStatusChanged]);
    });

    it('v2: pending at the retirement fails with WATERMARK_V2_API_SUNSET (credits restored), before it nothing happens', () => {
      const before = order({ apiVersion: 'v2' });
      expect(before.v2Retired(new Date(V2_RETIREMENT_AT.getTime() - 1))).toEqual([]);
      const after = order({ apiVersion: 'v2' });
      const events = after.v2Retired(V2_RETIREMENT_AT);
      expect(payloadOf<OrderFailedEvent>(events, EventSubjects.orderFailed).errorCode).toBe('WATERMARK_V2_API_SUNSET');
      expect(after.takeCreditMovements()).toHaveLength(1);
      expect(order({ apiVersion: 'v3' }).v2Retired(V2_RETIREMENT_AT)).toEqual([]);
    });

    it('v2: the last upload after the retirement fails instead of starting', () => {
      const target = order({ apiVersion: 'v2' });
      target.fileUploaded('1', 10, V2_RETIREMENT_AT);
      target.startProcessing(V2_RETIREMENT_AT);
      expect(target.status).toBe('failed');
      expect(target.state.failureCode).toBe('WATERMARK_V2_API_SUNSET');
    });
  });

  describe('inProgress', () => {
    const processing = (): Order => {
      const target = order();
      target.fileUploaded('1', 10, at(1));
      target.startProcessing(at(1));
      return target;
    };

    it('processing finishes → complete, with the completed event and the download', () => {
      const target = processing();
      target.outputStarted('1-1', at(1.5));
      expect(target.outputs[0].status).toBe('processing');
      expect(target.outputCompleted('1-1', 'k1', at(1.5))).toBe(true);
      expect(target.allOutputsCompleted()).toBe(false);
      target.outputCompleted('1-2', 'k2', at(1.5));
      expect(target.allOutputsCompleted()).toBe(true);
      const events = target.complete(at(2), { download: { bucket: 'b', key: 'zip', fileName: '42-watermarked.zip' }, webhookData: { fileCount: 1 } }, 'zip');
      expect(target.status).toBe('complete');
      expect(target.state.packageKey).toBe('zip');
      expect(subjects(events)).toEqual([EventSubjects.orderCompleted, EventSubjects.orderStatusChanged]);
      const completed = payloadOf<OrderCompletedEvent>(events, EventSubjects.orderCompleted);
      expect(completed).toMatchObject({ orderId: '42', orderName: 'watermark-embed-42', fileCount: 1, webhookData: { fileCount: 1 } });
      expect(target.canDownload(at(3))).toBe(true);
      expect(target.takeCreditMovements()).toEqual([]);
    });

    it('processing fails → failed with the public code, unfinished outputs fail, credits restored once', () => {
      const target = processing();
      target.outputCompleted('1-1', 'k1', at(1.5));
      const events = target.outputFailed('1-2', 'WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED', at(2));
      expect(target.status).toBe('failed');
      expect(target.outputs.map((entry) => entry.status)).toEqual(['completed', 'failed']);
      expect(payloadOf<OrderFailedEvent>(events, EventSubjects.orderFailed).errorCode).toBe('WATERMARK_IMAGE_COLOR_MODE_UNSUPPORTED');
      expect(target.fail('PROCESSING_ERROR', at(3))).toEqual([]);
      expect(target.takeCreditMovements()).toEqual([{ amount: 2, reference: 'restore:42', reason: 'order failed' }]);
    });

    it('automatic retries exhausted → still inProgress, processingDelayed true', () => {
      const target = processing();
      expect(target.processingDelayed(at(2))).toEqual([]);
      expect(target.status).toBe('inProgress');
      expect(target.state.processingDelayed).toBe(true);
    });

    it('a failure clears processingDelayed', () => {
      const target = processing();
      target.processingDelayed(at(2));
      target.fail('PROCESSING_ERROR', at(3));
      expect(target.state.processingDelayed).toBe(false);
    });
  });

  describe('a type result that delivers nothing chargeable completes (not failed) and refunds the credit', () => {
    it.each([
      ['nothing to charge', true],
      [undefined, false],
    ] as const)('refund reason %s → complete, refunded %s', (refundReason, refunded) => {
      const target = order({ creditsCharged: 1 }, [file('1')], []);
      target.fileUploaded('1', 1, at(1));
      target.startProcessing(at(1));
      target.recordTypeResult(() => ({ outcome: 'x' }), at(2), refundReason);
      target.complete(at(2), {});
      expect([target.status, target.state.typeResult]).toEqual(['complete', { outcome: 'x' }]);
      expect(target.takeCreditMovements()).toEqual(refunded ? [{ amount: 1, reference: 'restore:42', reason: refundReason }] : []);
      expect(target.canDownload(at(3))).toBe(false);
    });

    it('records nothing once the order no longer processes', () => {
      const target = order({ creditsCharged: 1, status: 'failed' }, [file('1')], []);
      target.recordTypeResult(() => ({ outcome: 'x' }), at(2), 'nothing to charge');
      expect([target.state.typeResult, target.takeCreditMovements()]).toEqual([null, []]);
    });
  });

  describe('any state with files → expired when the retention period ends', () => {
    it.each(['pending', 'inProgress', 'complete', 'failed'] as const)('%s → expired, result keys forgotten', (status) => {
      const target = order({ status, packageKey: 'zip' }, [file('1')], [output('1-1', '1', { objectKey: 'k', status: 'completed' })]);
      expect(target.expire(at(719))).toEqual([]);
      const events = target.expire(at(720));
      expect(target.status).toBe('expired');
      expect(target.state.packageKey).toBeNull();
      expect(target.outputs[0].objectKey).toBeNull();
      expect(payloadOf<OrderStatusChangedEvent>(events, EventSubjects.orderStatusChanged).status).toBe('expired');
      expect(target.expire(at(721))).toEqual([]);
    });

    it.each([
      ['pending', true],
      ['inProgress', true],
      ['complete', false],
      ['failed', false],
    ] as const)('a %s order that expires gets its credits back: %s', (status, refunded) => {
      const target = order({ status, processingDelayed: status === 'inProgress' });
      target.expire(at(720));
      expect(target.status).toBe('expired');
      expect(target.takeCreditMovements()).toEqual(refunded ? [{ amount: 2, reference: 'restore:42', reason: 'order expired before completing' }] : []);
      target.expire(at(721));
      expect(target.takeCreditMovements()).toEqual([]);
    });

    it('isExpired by the clock before the sweep, and no downloads after it', () => {
      const target = order({ status: 'complete' }, [file('1')], [output('1-1', '1', { objectKey: 'k', status: 'completed' })]);
      expect(target.isExpired(at(719))).toBe(false);
      expect(target.canDownload(at(719))).toBe(true);
      expect(target.isExpired(at(720))).toBe(true);
      expect(target.canDownload(at(720))).toBe(false);
    });
  });

  describe('inProgress without progress past the sweeper age → failed PROCESSING_TIMEOUT', () => {
    const SIX_HOURS = 6 * HOUR;

    it('fails only once the age has passed since its last transition, restoring its credits with a failed event', () => {
      const target = order({ status: 'inProgress', processingDelayed: true, updatedAt: at(2) });
      expect(target.processingTimedOut(at(7.9), SIX_HOURS)).toEqual([]);
      expect(target.status).toBe('inProgress');
      const events = target.processingTimedOut(at(8), SIX_HOURS);
      expect(target.state).toMatchObject({ status: 'failed', failureCode: 'PROCESSING_TIMEOUT', processingDelayed: false, failedAt: at(8) });
      expect(payloadOf<OrderFailedEvent>(events, EventSubjects.orderFailed).errorCode).toBe('PROCESSING_TIMEOUT');
      expect(target.takeCreditMovements()).toEqual([{ amount: 2, reference: 'restore:42', reason: 'order failed' }]);
      expect(target.outputs.map((item) => item.status)).toEqual(['failed', 'failed']);
      expect(target.processingTimedOut(at(9), SIX_HOURS)).toEqual([]);
    });

    it('an output started or completed is progress: the age counts from it, so an order whose outputs keep moving is never stuck', () => {
      const target = order({ status: 'inProgress', updatedAt: at(0) }, [file('1', { status: 'uploaded' })], [
        output('1-1', '1', { status: 'queued' }),
        output('1-2', '1', { status: 'queued', outputIndex: 1 }),
        output('1-3', '1', { status: 'queued', outputIndex: 2 }),
      ]);
      target.outputStarted('1-1', at(5));
      expect(target.processingTimedOut(at(10.9), SIX_HOURS)).toEqual([]);
      expect(target.outputCompleted('1-1', 'k1', at(10))).toBe(true);
      expect(target.processingTimedOut(at(15.9), SIX_HOURS)).toEqual([]);
      // A repeated result is no progress: the age still counts from the completion at 10 h.
      expect(target.outputCompleted('1-1', 'k1', at(15))).toBe(false);
      target.outputStarted('1-1', at(15));
      expect(target.state.updatedAt).toEqual(at(10));
      expect(target.status).toBe('inProgress');
      // Then nothing for six hours: stuck.
      expect(subjects(target.processingTimedOut(at(16), SIX_HOURS))).toEqual([EventSubjects.orderFailed, EventSubjects.orderStatusChanged]);
      expect(target.state.failureCode).toBe('PROCESSING_TIMEOUT');
    });

    it('outputs moving faster than every 15 s record it on the order once per 15 s, not once each (one write of its row)', () => {
      const target = order({ status: 'inProgress', updatedAt: at(0) }, [file('1', { status: 'uploaded' })], [
        output('1-1', '1', { status: 'queued' }),
        output('1-2', '1', { status: 'queued', outputIndex: 1 }),
      ]);
      const start = at(1);
      const seconds = (value: number) => new Date(start.getTime() + value * 1000);
      target.outputStarted('1-1', seconds(0));
      target.outputCompleted('1-1', 'k1', seconds(5));
      target.outputStarted('1-2', seconds(10));
      expect(target.state.updatedAt).toEqual(seconds(0));
      target.outputCompleted('1-2', 'k2', seconds(15));
      expect(target.state.updatedAt).toEqual(seconds(15));
      expect(OUTPUT_PROGRESS_RECORD_MS).toBe(15_000);
    });

    it.each(['pending', 'complete', 'failed', 'expired'] as const)('a %s order is left alone', (status) => {
      const target = order({ status, updatedAt: at(0) });
      expect(target.processingTimedOut(at(100), SIX_HOURS)).toEqual([]);
      expect(target.status).toBe(status);
      expect(target.takeCreditMovements()).toEqual([]);
    });
  });

  describe('transitions that do not apply change nothing', () => {
    it.each(['complete', 'failed', 'expired'] as const)('a %s order ignores processing results', (status) => {
      const target = order({ status });
      expect(target.outputCompleted('1-1', 'k', at(1))).toBe(false);
      expect(target.outputFailed('1-1', 'PROCESSING_ERROR', at(1))).toEqual([]);
      expect(target.complete(at(1), {})).toEqual([]);
      expect(target.processingDelayed(at(1))).toEqual([]);
      expect(target.fileUploaded('1', 1, at(1))).toEqual([]);
      expect(target.status).toBe(status);
    });

    it('upload URLs only while pending and within retention', () => {
      expect(order().acceptsUploads(at(1))).toBe(true);
      expect(order({ status: 'inProgress' }).acceptsUploads(at(1))).toBe(false);
      expect(order().acceptsUploads(at(720))).toBe(false);
    });
  });
});

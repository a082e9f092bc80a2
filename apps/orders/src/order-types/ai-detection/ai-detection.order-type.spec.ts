// AI detection orders without a database: the spec's thresholds, per-image analyses kept on the order, the
// headline probability, failures, and the confirmation recorded before the uploads are in.
import { AiDetectionCompletedEvent, aiDetectionCategoryOf, AiDetectionVerdict, EventSubjects, JobSubjects, ObjectKeys, OutboxMessage, StoredObjectRef } from '@cp/contracts';
import { Order, OrderFileState } from '../../domain/order';
import { ObjectUrls, ProcessingContext } from '../order-type-definition';
import { aiDetectionOrderRules, isConfirmed, recordConfirmation } from './ai-detection-order.rules';
import { AiDetectionOrderType } from './ai-detection.order-type';

const type = new AiDetectionOrderType();
const context: ProcessingContext = { now: new Date('2026-11-01T00:00:00.000Z'), buckets: { inputs: 'in', outputs: 'out' } };

function orderOf(status: 'pending' | 'inProgress', fileCount = 2, options = { generateHeatmap: true }): Order {
  const rules = aiDetectionOrderRules({ files: Array.from({ length: fileCount }, (_, index) => ({ fileName: `p${index}.png` })), options });
  const files: OrderFileState[] = rules.files.map((file, position) => ({ ...file, id: String(position + 1), position, status: 'uploaded', size: '10' }));
  const at = context.now;
  return new Order(
    {
      id: '9',
      accountId: '3',
      mode: 'live',
      type: 'aiDetection',
      apiVersion: 'v3',
      status,
      processingDelayed: false,
      failureCode: null,
      creditsCharged: rules.credits,
      packageKey: null,
      options: rules.options ?? null,
      typeResult: null,
      expiresAt: new Date(at.getTime() + 3600_000),
      completedAt: null,
      failedAt: null,
      createdAt: at,
      updatedAt: at,
    },
    files,
    rules.outputs?.(files).map((output) => ({ ...output, status: status === 'inProgress' ? ('queued' as const) : ('pending' as const) })) ?? [],
  );
}

function completed(fileId: string, probability: number, heatmap = false, verdict?: AiDetectionVerdict): AiDetectionCompletedEvent {
  return {
    orderId: '9',
    fileId,
    probability,
    category: aiDetectionCategoryOf(probability),
    ...(verdict ? { verdict } : {}),
    noEvidence: false,
    statement: 's',
    evidence: [],
    heatmapNote: null,
    images: {
      preview: null,
      thumbnail: { bucket: 'out', key: `t${fileId}`, fileName: 't.webp' },
      heatmap: heatmap ? { bucket: 'out', key: `h${fileId}`, fileName: 'h.webp' } : null,
      overlay: null,
    },
  };
}

/** What a read presigns: each linked object, nothing else (a view must not link to an object it did not declare). */
function urlsFor(linked: StoredObjectRef[]): ObjectUrls {
  return { of: (ref) => (ref && linked.some((entry) => entry.key === ref.key) ? `https://s3/${ref.key}` : null) };
}

const subjects = (messages: OutboxMessage[]) => messages.map((entry) => entry.contract.subject);

describe('AI detection orders', () => {
  it('map probabilities to the spec 2.7 categories at exactly its thresholds', () => {
    expect([0, 0.2499, 0.25, 0.4999, 0.5, 0.7499, 0.75, 1].map(aiDetectionCategoryOf)).toEqual([
      'likely_real',
      'likely_real',
      'uncertain_real',
      'uncertain_real',
      'uncertain_ai',
      'uncertain_ai',
      'likely_ai',
      'likely_ai',
    ]);
  });

  it('cost 1 credit per image and send one analysis job per image with the options', () => {
    const order = orderOf('inProgress');
    expect(order.state.creditsCharged).toBe(2);
    const jobs = type.startLive(order, context);
    expect(jobs.map((entry) => entry.contract.subject)).toEqual([JobSubjects.aiDetect, JobSubjects.aiDetect]);
    expect(jobs[0].payload).toMatchObject({ orderId: '9', fileId: '1', generateHeatmap: true, generateOverlay: false, outputBucket: 'out' });
  });

  it('keep each analysis and complete with the most AI-looking image as headline, without a download', () => {
    const order = orderOf('inProgress');
    const [onCompleted] = type.results;
    expect(onCompleted.apply(order, completed('1', 0.1), context)).toEqual([]);
    const events = onCompleted.apply(order, completed('2', 0.8, true, 'edited_with_ai'), context);
    expect(subjects(events)).toContain(EventSubjects.orderCompleted);
    expect(type.webhookData(order)).toMatchObject({ probability: 0.8, category: 'likely_ai', verdict: 'edited_with_ai', noEvidence: false, heatmapUrl: null, overlayUrl: null });
    // The webhooks service presigns the headline image's heatmap into `heatmapUrl`.
    expect(events.find((entry) => entry.contract.subject === EventSubjects.orderCompleted)?.payload).toMatchObject({
      links: [{ field: 'heatmapUrl', object: { bucket: 'out', key: 'h2' } }],
    });
    const urls = urlsFor(type.linkedObjects(order));
    expect(type.v3View(order, {}, urls).detection).toMatchObject({
      probability: 0.8,
      category: 'likely_ai',
      verdict: 'edited_with_ai',
      noEvidence: false,
      files: [
        // an analysis recorded without a verdict gets the one its category implies
        { fileId: '1', probability: 0.1, verdict: 'captured', images: { originalUrl: `https://s3/${ObjectKeys.input('3', '9', '1', 'p0.png')}`, thumbnailUrl: 'https://s3/t1', heatmapUrl: null } },
        { fileId: '2', probability: 0.8, images: { thumbnailUrl: 'https://s3/t2', heatmapUrl: 'https://s3/h2', overlayUrl: null } },
      ],
    });
    expect(type.v2Detail(order, urls)).toMatchObject({
      statusCode: 'likely_ai',
      aiProbability: 0.8,
      aiVerdict: 'edited_with_ai',
      aiNoEvidence: false,
      thumbnailImageUrl: 'https://s3/t2',
      originalImageUrl: `https://s3/${ObjectKeys.input('3', '9', '2', 'p1.png')}`,
      heatmapImageUrl: 'https://s3/h2',
      overlayImageUrl: null,
    });
    expect(order.canDownload(context.now)).toBe(false);
  });

  it('fail the order with the public code of an image that cannot be analysed, credits back', () => {
    const order = orderOf('inProgress');
    const [, onFailed] = type.results;
    onFailed.apply(order, { orderId: '9', fileId: '2', code: 'AI_DETECTION_FILE_INVALID' }, context);
    expect(order.state).toMatchObject({ status: 'failed', failureCode: 'AI_DETECTION_FILE_INVALID' });
    expect(order.takeCreditMovements()).toEqual([{ amount: 2, reference: 'restore:9', reason: 'order failed' }]);
  });

  // Outside review: one invalid image of three failed the order (credits back), yet its reads kept the others' headline
  // (v2 `uncertain_ai`, 0.5; v3 a full `detection`), where an order failed on its only image shows none
  it.each([
    ['before', 'failure first, the other images analysed after it'],
    ['after', 'the other images analysed, then the failure'],
  ] as const)('a failed order shows no verdict, whatever its other images gave (%s: %s)', (when, _order) => {
    const order = orderOf('inProgress', 3);
    const [onCompleted, onFailed] = type.results;
    const fail = (): void => void onFailed.apply(order, { orderId: '9', fileId: '2', code: 'AI_DETECTION_FILE_INVALID' }, context);
    if (when === 'before') fail();
    onCompleted.apply(order, completed('1', 0.5, true), context);
    onCompleted.apply(order, completed('3', 0.8), context);
    if (when === 'after') fail();
    expect(order.state).toMatchObject({ status: 'failed', failureCode: 'AI_DETECTION_FILE_INVALID' });
    const urls = urlsFor(type.linkedObjects(order));
    expect(type.v3View(order, {}, urls).detection).toBeNull();
    const detail = type.v2Detail(order, urls);
    for (const field of ['statusCode', 'aiProbability', 'aiVerdict', 'aiNoEvidence', 'originalImageUrl', 'heatmapImageUrl', 'overlayImageUrl', 'thumbnailImageUrl']) {
      expect({ field, shown: field in detail }).toEqual({ field, shown: false });
    }
    // the same detail as an order failed on its only image
    const single = orderOf('inProgress', 1);
    onFailed.apply(single, { orderId: '9', fileId: '1', code: 'AI_DETECTION_FILE_INVALID' }, context);
    expect(detail).toEqual(type.v2Detail(single, urlsFor(type.linkedObjects(single))));
    // analyses recorded before the failure stay linked: retention still deletes their objects
    if (when === 'after') expect(type.linkedObjects(order).map((ref) => ref.key)).toEqual(expect.arrayContaining(['t1', 'h1', 't3']));
  });

  it('an order that expired before it completed shows no verdict; one that completed keeps it after expiry', () => {
    const [onCompleted] = type.results;
    const later = new Date(context.now.getTime() + 2 * 3600_000);
    const unfinished = orderOf('inProgress');
    onCompleted.apply(unfinished, completed('1', 0.8), context);
    unfinished.expire(later);
    expect(unfinished.state.status).toBe('expired');
    expect(type.v3View(unfinished, {}, urlsFor([])).detection).toBeNull();
    expect(type.v2Detail(unfinished, urlsFor([]))).not.toHaveProperty('aiProbability');
    const finished = orderOf('inProgress');
    onCompleted.apply(finished, completed('1', 0.1), context);
    onCompleted.apply(finished, completed('2', 0.8), context);
    finished.expire(later);
    expect(finished.state.status).toBe('expired');
    expect(type.v3View(finished, {}, urlsFor([])).detection).toMatchObject({ probability: 0.8, category: 'likely_ai' });
    expect(type.v2Detail(finished, urlsFor([]))).toMatchObject({ statusCode: 'likely_ai', aiProbability: 0.8 });
  });

  it('test keys get a result that says it is simulated and cannot be determined, spec category beside it', () => {
    const order = orderOf('inProgress', 1);
    type.startSandbox(order, context);
    expect(order.status).toBe('complete');
    expect(type.linkedObjects(order)).toEqual([]);
    expect(type.webhookData(order)).toMatchObject({ category: 'uncertain_ai', verdict: 'cannot_be_determined', noEvidence: true });
    expect(type.v2Detail(order, urlsFor([]))).toMatchObject({ statusCode: 'uncertain_ai', aiVerdict: 'cannot_be_determined', aiNoEvidence: true });
    expect(type.v3View(order, {}, urlsFor([])).detection?.files[0]).toMatchObject({
      probability: 0.5,
      category: 'uncertain_ai',
      verdict: 'cannot_be_determined',
      noEvidence: true,
      images: { originalUrl: null, thumbnailUrl: null, heatmapUrl: null, overlayUrl: null },
    });
    expect(type.v2Detail(order, urlsFor([]))).not.toHaveProperty('thumbnailImageUrl');
  });

  it('a confirmation before the uploads are in is kept with the pending order, once', () => {
    const order = orderOf('pending');
    expect([isConfirmed(order), type.startsOnLastFile(order)]).toEqual([false, false]);
    recordConfirmation(order, context.now);
    expect([order.status, isConfirmed(order), type.startsOnLastFile(order), order.state.options?.generateHeatmap]).toEqual(['pending', true, true, true]);
  });
});

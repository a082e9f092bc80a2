// Anti-AI creation rules and the type definition (no database): credits, options, zero-copy targets, jobs.
import { AntiAiJob, DomainException, ErrorCode, EventSubjects, JobSubjects, OutboxMessage } from '@cp/contracts';
import { Order, OrderFileState } from '../../domain/order';
import { SampleFiles } from '../../sandbox/sample-files';
import { ObjectUrls, ProcessingContext } from '../order-type-definition';
import { antiAiOrderRules } from './anti-ai-order.rules';
import { AntiAiOrderType } from './anti-ai.order-type';

const samples = { forOrder: () => ({ bucket: 'out', key: 'samples/png', fileName: 'sample' }) } as unknown as SampleFiles;
const type = new AntiAiOrderType(samples);
const context: ProcessingContext = { now: new Date('2026-11-01T00:00:00.000Z'), buckets: { inputs: 'in', outputs: 'out' } };
const target = (fileKey: string) => ({ fileKey, url: `https://bucket.example.com/${fileKey}?X-Amz-Signature=1`, presignedUrlExpiresAt: '2026-11-02T00:00:00.000Z' });

/** An inProgress order made by the rules, with file ids 1, 2, … */
function orderOf(rules: ReturnType<typeof antiAiOrderRules>): Order {
  const files: OrderFileState[] = rules.files.map((file, position) => ({ ...file, id: String(position + 1), position, status: 'uploaded', size: '10' }));
  const at = context.now;
  return new Order(
    {
      id: '9',
      accountId: '3',
      mode: 'live',
      type: 'antiAi',
      apiVersion: 'v3',
      status: 'inProgress',
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
    rules.outputs?.(files).map((output) => ({ ...output, status: 'queued' as const })) ?? [],
  );
}

const jobs = (messages: OutboxMessage[]): AntiAiJob[] => messages.filter((entry) => entry.contract.subject === JobSubjects.watermarkAntiAi).map((entry) => entry.payload as AntiAiJob);
const codeOf = (work: () => unknown): unknown => {
  try {
    work();
    return null;
  } catch (error) {
    return error instanceof DomainException ? error.code : error;
  }
};

describe('anti-AI orders', () => {
  it('cost 1 credit per image, keep the options, and default to strength medium', () => {
    const rules = antiAiOrderRules({ files: [{ fileName: 'a.jpg' }, { fileName: 'b.png', originalFileUrl: 'https://images.example.com/b.png' }], orderName: 'catalogue' });
    expect(rules.credits).toBe(2);
    expect(rules.options).toEqual({ strength: 'medium', orderName: 'catalogue' });
    expect(rules.files.map((file) => file.sourceUrl)).toEqual([null, 'https://images.example.com/b.png']);
  });

  it("send one job per image into our storage, with the strength and the client's policy", () => {
    const order = orderOf(antiAiOrderRules({ files: [{ fileName: 'a.jpg' }, { fileName: 'b.png' }], options: { strength: 'high', tdmPolicyUrl: 'https://example.com/tdm.json' } }));
    const sent = jobs(type.startLive(order, context));
    expect(sent.map((job) => [job.outputFileId, job.strength, job.tdmPolicyUrl, job.output?.bucket, job.outputTarget])).toEqual([
      ['1-1', 'high', 'https://example.com/tdm.json', 'out', undefined],
      ['2-1', 'high', 'https://example.com/tdm.json', 'out', undefined],
    ]);
    // The first file's job also makes the v2 detail thumbnail, under the order's prefix (retention deletes it).
    expect(sent.map((job) => job.thumbnail?.key)).toEqual([expect.stringMatching(/thumbnail\.webp$/), undefined]);
  });

  it('the v2 detail shows the thumbnail the processor made, and the common one (the input) without it', () => {
    const order = orderOf(antiAiOrderRules({ files: [{ fileName: 'a.jpg' }, { fileName: 'b.png' }] }));
    const [thumbnailJob] = jobs(type.startLive(order, context));
    const urls: ObjectUrls = { of: (ref) => (ref && type.linkedObjects(order).some((entry) => entry.key === ref.key) ? `https://s3/${ref.key}` : null) };
    expect(type.v2Detail(order, urls)).toEqual({});
    const [completed] = type.results;
    completed.apply(order, { orderId: '9', outputFileId: '1-1', delivery: 'stored', objectKey: 'k1', size: 5, layers: [], thumbnail: thumbnailJob.thumbnail }, context);
    expect(type.v2Detail(order, urls)).toEqual({ thumbnailImageUrl: `https://s3/${thumbnailJob.thumbnail?.key ?? 'none'}` });
  });

  it("zero-copy: each job PUTs to its file's target, and the order completes without a download", () => {
    const order = orderOf(antiAiOrderRules({ files: [{ fileName: 'a.jpg' }, { fileName: 'b.png' }], zeroCopy: true, outputTargets: [target('b.png'), target('a.jpg')] }));
    const sent = jobs(type.startLive(order, context));
    expect(sent.map((job) => [job.output, job.outputTarget?.url])).toEqual([
      [undefined, 'https://bucket.example.com/a.jpg?X-Amz-Signature=1'],
      [undefined, 'https://bucket.example.com/b.png?X-Amz-Signature=1'],
    ]);
    const [completed] = type.results;
    expect(completed.apply(order, { orderId: '9', outputFileId: '1-1', delivery: 'zeroCopy', size: 5, layers: [] }, context)).toEqual([]);
    const events = completed.apply(order, { orderId: '9', outputFileId: '2-1', delivery: 'zeroCopy', size: 5, layers: [] }, context);
    expect(events.map((entry) => entry.contract.subject)).toContain(EventSubjects.orderCompleted);
    expect(order.canDownload(context.now)).toBe(false);
  });

  it('refuse zero-copy requests whose targets do not name each file once (VALIDATION_FAILED)', () => {
    const files = [{ fileName: 'a.jpg' }, { fileName: 'b.png' }];
    expect(codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: [target('a.jpg')] }))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: [target('a.jpg'), target('c.png')] }))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => antiAiOrderRules({ files: [{ fileName: 'a.jpg' }, { fileName: 'a.jpg' }], zeroCopy: true, outputTargets: [target('a.jpg'), target('a.jpg')] }))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => antiAiOrderRules({ files, outputTargets: [target('a.jpg'), target('b.png')] }))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: [target('a.jpg'), target('b.png')] }))).toBeNull();
  });

  it('refuse targets off HTTPS or on a private address, unless the operator allowed that IP (a local test stack)', () => {
    const files = [{ fileName: 'a.jpg' }];
    const on = (url: string) => [{ ...target('a.jpg'), url }];
    for (const url of ['https://127.0.0.1:9443/b/a.jpg', 'https://10.1.2.3/a.jpg', 'https://[::1]/a.jpg', 'https://169.254.169.254/a.jpg', 'https://intranet.local/a.jpg']) {
      expect([url, codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: on(url) }))]).toEqual([url, ErrorCode.VALIDATION_FAILED]);
    }
    expect(codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: on('https://127.0.0.1:9443/b/a.jpg') }, ['127.0.0.1']))).toBeNull();
    expect(codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: on('https://10.1.2.3/a.jpg') }, ['127.0.0.1']))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(codeOf(() => antiAiOrderRules({ files, zeroCopy: true, outputTargets: on('http://127.0.0.1:9443/b/a.jpg') }, ['127.0.0.1']))).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('a file that cannot be protected fails the order with its public code', () => {
    const order = orderOf(antiAiOrderRules({ files: [{ fileName: 'a.bmp' }] }));
    const [, failed] = type.results;
    failed.apply(order, { orderId: '9', outputFileId: '1-1', code: 'ANTI_AI_FORMAT_UNSUPPORTED' }, context);
    expect(order.state).toMatchObject({ status: 'failed', failureCode: 'ANTI_AI_FORMAT_UNSUPPORTED' });
  });
});

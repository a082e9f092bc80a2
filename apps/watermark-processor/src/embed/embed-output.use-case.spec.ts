// The embed use case with fakes (no database, no S3, no engine): what it stores and what it reports.
import { WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { EmbedJob, EventSubjects, OrderFailureCode } from '@cp/contracts';
import { readZip } from '@cp/testing';
import { InputRejected, WatermarkEngine } from '../engine/watermark-engine';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { fakeContext, fakeTransactions, MemoryStorage, RecordingOutbox } from '../testing/fakes';
import { WatermarkProcessorConfig } from '../watermark-processor.config';
import { LastOutputPackageService } from '../package/last-output-package.service';
import { EmbedOutputUseCase } from './embed-output.use-case';

const config = { watermark: { maxInputBytes: 1000 } } as WatermarkProcessorConfig;
const job: EmbedJob = {
  orderId: '9',
  accountId: '3',
  outputFileId: '5-1',
  text: 'recipient a',
  mediaKind: 'image',
  input: { bucket: 'in', key: '3/9/inputs/5/photo.png', fileName: 'photo.png' },
  output: { bucket: 'out', key: '3/9/outputs/5-1.png', fileName: 'photo-watermarked-5-1.png' },
};

function setup(embed: (input: Buffer, id: bigint) => Promise<{ data: Buffer; contentType: string }>) {
  const storage = new MemoryStorage();
  const outbox = new RecordingOutbox();
  const issued = new Map<string, { id: string; algorithm: 'v3' }>();
  const issuances = {
    // One issuance per output, whatever the number of deliveries.
    findOrCreate: (_manager: unknown, request: { outputFileId: string }) => {
      const existing = issued.get(request.outputFileId) ?? { id: String(100 + issued.size), algorithm: 'v3' as const };
      issued.set(request.outputFileId, existing);
      return Promise.resolve(existing);
    },
    recordInputHash: () => Promise.resolve(),
  } as unknown as IssuanceRepository;
  const seen: bigint[] = [];
  const engine = {
    embed: (input: Buffer, id: bigint) => {
      seen.push(id);
      return embed(input, id);
    },
  } as unknown as WatermarkEngine;
  const useCase = new EmbedOutputUseCase(fakeTransactions, config, issuances, engine, storage.asStorage(), outbox.asOutbox(), new LastOutputPackageService(storage.asStorage()));
  return { storage, outbox, seen, useCase };
}

describe('EmbedOutputUseCase', () => {
  it('stores the marked file and reports it, with the same issuance on every delivery', async () => {
    const { storage, outbox, seen, useCase } = setup((input, id) => Promise.resolve({ data: Buffer.concat([input, Buffer.from(`#${id}`)]), contentType: 'image/png' }));
    storage.seed('in', job.input.key, Buffer.from('pixels'));
    await useCase.execute(job, fakeContext());
    await useCase.execute(job, fakeContext());
    expect(storage.read('out', job.output.key)?.toString()).toBe('pixels#100');
    expect(seen).toEqual([100n, 100n]);
    expect(outbox.subjects()).toEqual([EventSubjects.outputProcessing, EventSubjects.outputCompleted, EventSubjects.outputProcessing, EventSubjects.outputCompleted]);
    expect(outbox.messages[1].payload).toEqual({ orderId: '9', outputFileId: '5-1', objectKey: job.output.key, size: 'pixels#100'.length });
  });

  it('fails the output with a public code when the input is too large or the engine rejects it, storing nothing', async () => {
    const tooLarge = setup(() => Promise.reject(new Error('must not be called')));
    tooLarge.storage.seed('in', job.input.key, Buffer.alloc(1001));
    await tooLarge.useCase.execute(job, fakeContext());
    expect(tooLarge.outbox.messages.at(-1)).toEqual({ subject: EventSubjects.outputFailed, payload: { orderId: '9', outputFileId: '5-1', code: OrderFailureCode.WATERMARK_FILE_TOO_LARGE } });
    expect(tooLarge.seen).toEqual([]);

    const rejected = setup(() => Promise.reject(new InputRejected(OrderFailureCode.WATERMARK_FILE_INVALID, 'not an image')));
    rejected.storage.seed('in', job.input.key, Buffer.from('garbage'));
    await rejected.useCase.execute(job, fakeContext());
    expect(rejected.outbox.messages.at(-1)?.payload).toMatchObject({ code: OrderFailureCode.WATERMARK_FILE_INVALID });
    expect(rejected.storage.read('out', job.output.key)).toBeUndefined();
  });

  it('leaves a missing input or an engine crash to the retry (throws, reports no result)', async () => {
    const missing = setup(() => Promise.resolve({ data: Buffer.from('x'), contentType: 'image/png' }));
    await expect(missing.useCase.execute(job, fakeContext())).rejects.toThrow('not in storage');
    const crash = setup(() => Promise.reject(new Error('out of memory')));
    crash.storage.seed('in', job.input.key, Buffer.from('pixels'));
    await expect(crash.useCase.execute(job, fakeContext())).rejects.toThrow('out of memory');
    // the PDF renderer dying (not the file's doing): a failed attempt, whose exhaustion marks the order processingDelayed
    const deadline = setup(() => Promise.reject(new WorkerFailure(WorkerFailureCode.CRASHED, 'pdf-render', 'the worker exited (SIGKILL)')));
    deadline.storage.seed('in', job.input.key, Buffer.from('%PDF-'));
    await expect(deadline.useCase.execute(job, fakeContext())).rejects.toBeInstanceOf(WorkerFailure);
    for (const { outbox } of [missing, crash, deadline]) {
      expect(outbox.subjects()).toEqual([EventSubjects.outputProcessing]);
    }
  });

  describe('an order of several outputs (issue 32: its ZIP made with the last output)', () => {
    const second = { bucket: 'out', key: '3/9/outputs/5-2.png', fileName: 'photo-watermarked-5-2.png' };
    const zipRef = { bucket: 'out', key: '3/9/9-watermarked.zip', fileName: '9-watermarked.zip' };
    const packed: EmbedJob = { ...job, package: { entries: [job.output, second], output: zipRef } };
    const marked = () => setup((input, id) => Promise.resolve({ data: Buffer.concat([input, Buffer.from(`#${id}`)]), contentType: 'image/png' }));

    it('another output not stored yet: reports its output without a ZIP, and writes none', async () => {
      const { storage, outbox, useCase } = marked();
      storage.seed('in', job.input.key, Buffer.from('pixels'));
      await useCase.execute(packed, fakeContext());
      expect(outbox.messages.at(-1)).toEqual({ subject: EventSubjects.outputCompleted, payload: { orderId: '9', outputFileId: '5-1', objectKey: job.output.key, size: 10 } });
      expect(storage.read(zipRef.bucket, zipRef.key)).toBeUndefined();
    });

    it('the last output stored: writes the ZIP of every output under its download name, then reports it with the output', async () => {
      const { storage, outbox, useCase } = marked();
      storage.seed('in', job.input.key, Buffer.from('pixels'));
      storage.seed(second.bucket, second.key, Buffer.from('second output'));
      await useCase.execute(packed, fakeContext());
      expect(outbox.messages.at(-1)).toEqual({
        subject: EventSubjects.outputCompleted,
        payload: { orderId: '9', outputFileId: '5-1', objectKey: job.output.key, size: 10, packageKey: zipRef.key },
      });
      const entries = await readZip(storage.read(zipRef.bucket, zipRef.key) ?? Buffer.alloc(0));
      expect(Object.fromEntries([...entries].map(([name, data]) => [name, data.toString()]))).toEqual({
        'photo-watermarked-5-1.png': 'pixels#100',
        'photo-watermarked-5-2.png': 'second output',
      });
    });

    it('storage failing while it packs: the output is still reported, without a ZIP (the package job makes it)', async () => {
      const { storage, outbox, useCase } = marked();
      storage.seed('in', job.input.key, Buffer.from('pixels'));
      storage.seed(second.bucket, second.key, Buffer.from('second output'));
      const put = storage.put.bind(storage);
      jest.spyOn(storage, 'put').mockImplementation((bucket, key, body, contentType) =>
        key === zipRef.key ? Promise.reject(new Error('storage unreachable')) : put(bucket, key, body, contentType),
      );
      await useCase.execute(packed, fakeContext());
      expect(outbox.messages.at(-1)?.payload).toEqual({ orderId: '9', outputFileId: '5-1', objectKey: job.output.key, size: 10 });
    });
  });
});

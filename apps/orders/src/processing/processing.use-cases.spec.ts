// Use cases of processing with a fake repository: uploads start orders, workers' results finish them.
import { ManualClock } from '@cp/clock';
import { EmbedJob, EventSubjects, KeyMode, OrderType, OutboxMessage, V2_RETIREMENT_AT } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { ModuleRef } from '@nestjs/core';
import { ApiVersion, Order, OrderFileState, OrderOutputState } from '../domain/order';
import { OrderTypeDefinition } from '../order-types/order-type-definition';
import { PACKAGE_WITH_OUTPUTS_MAX } from '../order-types/order-outputs';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { WatermarkEmbedOrderType } from '../order-types/watermark-embed/watermark-embed.order-type';
import { WatermarkExtractOrderType } from '../order-types/watermark-extract/watermark-extract.order-type';
import { OrdersConfig } from '../orders.config';
import { OrdersRepository } from '../orders/orders.repository';
import { KeyModesService } from '../sandbox/key-modes.service';
import { SampleFiles } from '../sandbox/sample-files';
import { ApplyResultUseCase } from './apply-result.use-case';
import { FileFailedUseCase } from './file-failed.use-case';
import { FileUploadedUseCase } from './file-uploaded.use-case';
import { OrderDelayedUseCase } from './order-delayed.use-case';
import { OrderProcessingService } from './order-processing.service';
import { extractResultOf } from '../order-types/watermark-extract/watermark-extract.order-type';

/** Keeps orders in memory and records what each save wrote. */
class FakeOrdersRepository {
  readonly saved: Array<{ order: Order; events: readonly OutboxMessage[] }> = [];
  constructor(private readonly orders: Map<string, Order>) {}

  lock(_tx: Transaction, orderId: string): Promise<Order | null> {
    return Promise.resolve(this.orders.get(orderId) ?? null);
  }

  save(_tx: Transaction, order: Order, events: readonly OutboxMessage[]): Promise<void> {
    this.saved.push({ order, events });
    return Promise.resolve();
  }

  /** The jobs freed by results, as `order/unit`. */
  readonly released: string[] = [];

  releaseJobs(_tx: Transaction, orderId: string, units: readonly string[]): Promise<void> {
    this.released.push(...units.map((unit) => `${orderId}/${unit}`));
    return Promise.resolve();
  }

  lastEvents(): string[] {
    return (this.saved.at(-1)?.events ?? []).map((event) => event.contract.subject);
  }
}

const samples = { forOrder: (count: number) => ({ bucket: 'out', key: count > 1 ? 'samples/zip' : 'samples/png', fileName: 'sample' }) } as unknown as SampleFiles;
const embedType = new WatermarkEmbedOrderType(samples);
const extractType = new WatermarkExtractOrderType();
const definitions: Record<string, OrderTypeDefinition> = { watermarkEmbed: embedType, watermarkExtract: extractType };
const moduleRef = { get: (type: unknown) => (type === WatermarkEmbedOrderType ? embedType : extractType) } as unknown as ModuleRef;
const config = { storage: { buckets: { inputs: 'in', outputs: 'out', reports: 'rep' } }, queuedJobsPerAccount: 3 } as unknown as OrdersConfig;
const tx = {} as Transaction;
const storage = { buckets: { inputs: 'in', outputs: 'out' } } as unknown as ObjectStorage;

function makeOrder(type: OrderType, mode: KeyMode, outputs: number, apiVersion: ApiVersion = 'v3'): Order {
  const files: OrderFileState[] =
    type === 'watermarkExtract'
      ? [
          { id: '1', position: 0, role: 'original', fileName: 'o.png', sourceUrl: null, mediaKind: 'image', status: 'awaiting_upload', size: null },
          { id: '2', position: 1, role: 'inspected', fileName: 'i.png', sourceUrl: null, mediaKind: 'image', status: 'awaiting_upload', size: null },
        ]
      : [{ id: '1', position: 0, role: 'input', fileName: 'photo.png', sourceUrl: null, mediaKind: 'image', status: 'awaiting_upload', size: null }];
  const outs: OrderOutputState[] = Array.from({ length: outputs }, (_, index) => ({
    fileId: `1-${index + 1}`,
    inputFileId: '1',
    inputPosition: 0,
    outputIndex: index,
    watermarkText: `t${index}`,
    status: 'pending',
    mediaKind: 'image',
    objectKey: null,
    failureCode: null,
  }));
  const created = new Date('2026-10-01T00:00:00.000Z');
  return new Order(
    {
      id: '9',
      accountId: '3',
      mode,
      type,
      apiVersion,
      status: 'pending',
      processingDelayed: false,
      failureCode: null,
      creditsCharged: mode === 'live' ? 1 : 0,
      packageKey: null,
      options: null,
      typeResult: null,
      expiresAt: new Date(created.getTime() + 720 * 3600_000),
      completedAt: null,
      failedAt: null,
      createdAt: created,
      updatedAt: created,
    },
    files,
    outs,
  );
}

function setup(order: Order, now = new Date('2026-10-01T01:00:00.000Z')) {
  const clock = new ManualClock(now);
  const repository = new FakeOrdersRepository(new Map([[order.id, order]]));
  const orders = repository as unknown as OrdersRepository;
  const processing = new OrderProcessingService(config, new OrderTypeRegistry(moduleRef, [WatermarkEmbedOrderType, WatermarkExtractOrderType]), new KeyModesService(storage, samples));
  return {
    repository,
    uploaded: new FileUploadedUseCase(orders, processing, clock),
    failed: new FileFailedUseCase(orders, clock),
    applyResult: new ApplyResultUseCase(orders, processing, clock),
    delayed: new OrderDelayedUseCase({ run: <T>(work: (tx: Transaction) => Promise<T>) => work(tx) } as unknown as TransactionRepository, orders, clock),
  };
}

describe('FileUploadedUseCase', () => {
  it('live embed: the last upload starts the order and queues one embed job per output', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 2);
    const { uploaded, repository } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 100 });
    expect(order.status).toBe('inProgress');
    expect(repository.lastEvents()).toEqual([EventSubjects.orderStatusChanged, 'job.watermark.embed', 'job.watermark.embed']);
    // Each job of this small order carries the ZIP it makes if its output is the last one stored (issue 32).
    const jobs = (repository.saved.at(-1)?.events ?? []).slice(1).map((event) => event.payload as EmbedJob);
    const entries = [
      { bucket: 'out', key: '3/9/outputs/1-1/photo-watermarked-1-1.png', fileName: 'photo-watermarked-1-1.png' },
      { bucket: 'out', key: '3/9/outputs/1-2/photo-watermarked-1-2.png', fileName: 'photo-watermarked-1-2.png' },
    ];
    expect(jobs.map((job) => job.output)).toEqual(entries);
    for (const job of jobs) {
      expect(job.package).toEqual({ entries, output: { bucket: 'out', key: '3/9/9-watermarked.zip', fileName: '9-watermarked.zip' } });
    }
    // Each job is held to the account's share of the embed queue, named by its output; the status event is not.
    expect((repository.saved.at(-1)?.events ?? []).map((event) => event.share)).toEqual([
      undefined,
      { key: 'job.watermark.embed:3', order: '9', unit: '1-1', limit: 3 },
      { key: 'job.watermark.embed:3', order: '9', unit: '1-2', limit: 3 },
    ]);
  });

  it('live embed: one output, or more than PACKAGE_WITH_OUTPUTS_MAX, gives jobs without a package', async () => {
    for (const outputs of [1, PACKAGE_WITH_OUTPUTS_MAX + 1]) {
      const order = makeOrder('watermarkEmbed', 'live', outputs);
      const { uploaded, repository } = setup(order);
      await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 100 });
      const jobs = (repository.saved.at(-1)?.events ?? []).slice(1).map((event) => event.payload as EmbedJob);
      expect(jobs).toHaveLength(outputs);
      expect(jobs.filter((job) => job.package !== undefined)).toEqual([]);
    }
  });

  it('test embed: completes at once with the sample ZIP, no job', async () => {
    const order = makeOrder('watermarkEmbed', 'test', 2);
    const { uploaded, repository } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 100 });
    expect(order.status).toBe('complete');
    expect(repository.lastEvents()).toEqual([EventSubjects.orderStatusChanged, EventSubjects.orderCompleted, EventSubjects.orderStatusChanged]);
    const completed = repository.saved.at(-1)?.events[1].payload as { download: { key: string }; webhookData: unknown };
    expect(completed.download.key).toBe('samples/zip');
    expect(completed.webhookData).toEqual({ fileCount: 1 });
  });

  it('test extract: a simulated result by the file name (detected)', async () => {
    const order = makeOrder('watermarkExtract', 'test', 0);
    order.files[1].fileName = 'leak-detected.png';
    const { uploaded } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 1 });
    expect(order.status).toBe('pending');
    await uploaded.execute(tx, { orderId: '9', fileId: '2', size: 1 });
    expect(order.status).toBe('complete');
    expect(extractResultOf(order)).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'sample watermark text' });
  });

  it('v2 order whose uploads finish after the retirement fails with WATERMARK_V2_API_SUNSET', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1, 'v2');
    const { uploaded, repository } = setup(order, V2_RETIREMENT_AT);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 1 });
    expect(order.state.failureCode).toBe('WATERMARK_V2_API_SUNSET');
    expect(repository.lastEvents()).toEqual([EventSubjects.orderFailed, EventSubjects.orderStatusChanged]);
  });

  it('an unknown order is ignored', async () => {
    const { uploaded, repository } = setup(makeOrder('watermarkEmbed', 'live', 1));
    await uploaded.execute(tx, { orderId: '404', fileId: '1', size: 1 });
    expect(repository.saved).toEqual([]);
  });
});

describe('FileFailedUseCase', () => {
  it('fails the pending order with the public code', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { failed, repository } = setup(order);
    await failed.execute(tx, { orderId: '9', fileId: '1', code: 'WATERMARK_SOURCE_URL_FAILED' });
    expect(order.state.failureCode).toBe('WATERMARK_SOURCE_URL_FAILED');
    expect(repository.lastEvents()).toEqual([EventSubjects.orderFailed, EventSubjects.orderStatusChanged]);
  });
});

describe('ApplyResultUseCase with the embed and extract handlers', () => {
  const handler = (definition: OrderTypeDefinition, durable: string) => {
    const found = definition.results.find((candidate) => candidate.durable === durable);
    if (!found) {
      throw new Error(`no handler ${durable}`);
    }
    return found;
  };

  it('one output: its completion completes the order with that file as the download', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { uploaded, applyResult, repository } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 1 });
    await applyResult.execute(tx, handler(embedType, 'orders-output-completed'), { orderId: '9', outputFileId: '1-1', objectKey: 'k/1', size: 5 });
    expect(order.status).toBe('complete');
    expect(order.state.packageKey).toBe('k/1');
    const completed = repository.saved.at(-1)?.events[0].payload as { download: { key: string; fileName: string } };
    expect(completed.download).toEqual({ bucket: 'out', key: 'k/1', fileName: 'photo-watermarked-1-1.png' });
  });

  it('two outputs: the last completion asks the processor for the ZIP; the order completes later', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 2);
    const { uploaded, applyResult, repository } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 1 });
    const completedHandler = handler(embedType, 'orders-output-completed');
    await applyResult.execute(tx, completedHandler, { orderId: '9', outputFileId: '1-1', objectKey: 'k/1', size: 5 });
    expect(repository.lastEvents()).toEqual([]);
    await applyResult.execute(tx, completedHandler, { orderId: '9', outputFileId: '1-2', objectKey: 'k/2', size: 5 });
    expect(repository.lastEvents()).toEqual(['job.watermark.package']);
    expect(order.status).toBe('inProgress');
    // Each completion freed its job; the package job is the whole order's, in the account's share of its own queue.
    expect(repository.released).toEqual(['9/1-1', '9/1-2']);
    expect(repository.saved.at(-1)?.events[0].share).toEqual({ key: 'job.watermark.package:3', order: '9', unit: 'order', limit: 3 });
    await applyResult.execute(tx, handler(embedType, 'orders-output-processing'), { orderId: '9', outputFileId: '1-1' });
    expect(repository.released).toEqual(['9/1-1', '9/1-2']);
  });

  it('two outputs whose job made the ZIP: the last completion completes the order with the ZIP, whichever output reported it', async () => {
    for (const packedBy of ['1-1', '1-2']) {
      const order = makeOrder('watermarkEmbed', 'live', 2);
      const { uploaded, applyResult, repository } = setup(order);
      await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 1 });
      const completedHandler = handler(embedType, 'orders-output-completed');
      const zip = (outputFileId: string) => (outputFileId === packedBy ? { packageKey: '3/9/9-watermarked.zip' } : {});
      await applyResult.execute(tx, completedHandler, { orderId: '9', outputFileId: '1-1', objectKey: 'k/1', size: 5, ...zip('1-1') });
      expect(order.status).toBe('inProgress');
      await applyResult.execute(tx, completedHandler, { orderId: '9', outputFileId: '1-2', objectKey: 'k/2', size: 5, ...zip('1-2') });
      expect(order.status).toBe('complete');
      expect(repository.lastEvents()).toEqual([EventSubjects.orderCompleted, EventSubjects.orderStatusChanged]);
      expect(order.state.packageKey).toBe('3/9/9-watermarked.zip');
      const completed = repository.saved.at(-1)?.events[0].payload as { download: unknown };
      expect(completed.download).toEqual({ bucket: 'out', key: '3/9/9-watermarked.zip', fileName: '9-watermarked.zip' });
    }
  });

  it('extract: an unsupported result completes the order and refunds its credit', async () => {
    const order = makeOrder('watermarkExtract', 'live', 0);
    const { uploaded, applyResult, repository } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 1 });
    await uploaded.execute(tx, { orderId: '9', fileId: '2', size: 1 });
    order.takeCreditMovements();
    const event = { orderId: '9', detectionStatus: 'unsupported' as const, reportSupported: false, watermarkText: null, confidence: 0, method: 'none' };
    await applyResult.execute(tx, handler(extractType, 'orders-extract-completed'), event);
    expect(order.status).toBe('complete');
    expect(order.takeCreditMovements()).toEqual([{ amount: 1, reference: 'restore:9', reason: 'extract unsupported' }]);
    expect(repository.released).toEqual(['9/order']);
  });

  it('results for an order that is no longer processing change nothing, but still free their job', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { applyResult, repository } = setup(order);
    await applyResult.execute(tx, handler(embedType, 'orders-output-completed'), { orderId: '9', outputFileId: '1-1', objectKey: 'k', size: 1 });
    expect(repository.saved).toEqual([]);
    expect(repository.released).toEqual(['9/1-1']);
    expect(definitions.watermarkEmbed.type).toBe('watermarkEmbed');
  });
});

describe('OrderDelayedUseCase (exhaustion of the orders consumers)', () => {
  it('a processing order whose result event was parked shows processingDelayed; its later completion clears it', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { uploaded, delayed, applyResult } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 100 });
    await delayed.execute('9');
    expect(order.status).toBe('inProgress');
    expect(order.state.processingDelayed).toBe(true);
    // The operator replays the parked result: the order completes and is no longer delayed.
    const completed = order.outputs[0].fileId;
    const handler = embedType.results.find((candidate) => candidate.contract.subject === EventSubjects.outputCompleted);
    if (!handler) {
      throw new Error('no output-completed handler');
    }
    await applyResult.execute(tx, handler, { orderId: '9', outputFileId: completed, objectKey: 'out/1-1.png', size: 1 });
    expect(order.status).toBe('complete');
    expect(order.state.processingDelayed).toBe(false);
  });

  it("a parked result event frees its job's place in the account's share; a parked event in the middle of a job frees none", async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { uploaded, delayed, repository } = setup(order);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 100 });
    await delayed.execute('9');
    expect(repository.released).toEqual([]);
    const completed = embedType.results.find((candidate) => candidate.durable === 'orders-output-completed');
    await delayed.execute('9', completed?.endedUnit?.({ orderId: '9', outputFileId: '1-1', objectKey: 'k', size: 1 }));
    expect(order.state.processingDelayed).toBe(true);
    expect(repository.released).toEqual(['9/1-1']);
  });

  it('a pending order whose file event was parked shows processingDelayed until it starts', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { uploaded, delayed } = setup(order);
    await delayed.execute('9');
    expect(order.status).toBe('pending');
    expect(order.state.processingDelayed).toBe(true);
    await uploaded.execute(tx, { orderId: '9', fileId: '1', size: 100 });
    expect(order.status).toBe('inProgress');
    expect(order.state.processingDelayed).toBe(false);
  });

  it('a terminal order is left as it is', async () => {
    const order = makeOrder('watermarkEmbed', 'live', 1);
    const { failed, delayed } = setup(order);
    await failed.execute(tx, { orderId: '9', fileId: '1', code: 'WATERMARK_SOURCE_URL_FAILED' });
    await delayed.execute('9');
    expect(order.state.processingDelayed).toBe(false);
  });
});

import { EmbedJob, ExtractJob, JobSubjects, ObjectKeys, outputFileName } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SampleFiles } from '../downloads/sample-files';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrderAggregate } from '../orders/orders.repository';
import { ExtractResults } from './extract-results.service';
import { simulatedExtractResult } from './simulated-extract-result';

/**
 * Every file is in: the order moves to inProgress and its jobs go to the processor's work queue (one per
 * output for embed, one per order for extract). Test orders get simulated results at once (no processor,
 * no result files).
 */
@Injectable()
export class StartProcessingUseCase {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly outbox: OutboxWriter,
    private readonly lifecycle: OrderLifecycle,
    private readonly samples: SampleFiles,
    private readonly extractResults: ExtractResults,
  ) {}

  async execute(manager: EntityManager, aggregate: OrderAggregate): Promise<void> {
    await this.lifecycle.startProcessing(manager, aggregate.order);
    if (aggregate.order.type === 'watermarkExtract') {
      await this.startExtract(manager, aggregate);
    } else {
      await this.startEmbed(manager, aggregate);
    }
  }

  private async startExtract(manager: EntityManager, aggregate: OrderAggregate): Promise<void> {
    const { order, files } = aggregate;
    const original = files.find((file) => file.role === 'original');
    const inspected = files.find((file) => file.role === 'inspected');
    if (!inspected) {
      throw new Error(`extract order ${order.id} has no file to inspect`);
    }
    if (order.mode === 'test') {
      const result = simulatedExtractResult(inspected.fileName, original?.mediaKind === 'pdf', inspected.mediaKind === 'image');
      await this.extractResults.record(manager, aggregate, { ...result, confidence: result.detectionStatus === 'detected' ? 1 : 0, method: 'simulated' });
      return;
    }
    if (!original) {
      // A v2 extract order without `includeOriginal`: the engine registers the inspected file against its
      // original, so without one the check cannot be made (unsupported, credit refunded).
      await this.extractResults.record(manager, aggregate, {
        detectionStatus: 'unsupported',
        reportSupported: false,
        watermarkText: null,
        confidence: 0,
        method: 'none',
      });
      return;
    }
    const bucket = this.config.storage.buckets.inputs;
    const ref = (file: OrderFileEntity) => ({ bucket, key: ObjectKeys.input(order.accountId, order.id, file.id, file.fileName), fileName: file.fileName });
    const job: ExtractJob = {
      orderId: order.id,
      accountId: order.accountId,
      original: ref(original),
      inspected: ref(inspected),
      algorithm: order.apiVersion === 'v2' ? 'v2' : 'v3',
    };
    await this.outbox.add(manager, JobSubjects.watermarkExtract, job);
  }

  private async startEmbed(manager: EntityManager, aggregate: OrderAggregate): Promise<void> {
    const { order, files, outputs } = aggregate;
    if (order.mode === 'test') {
      await manager.update(OrderOutputEntity, { orderId: order.id }, { status: 'completed' });
      outputs.forEach((output) => (output.status = 'completed'));
      await this.lifecycle.complete(manager, aggregate, { download: this.samples.forOrder(outputs.length) });
      return;
    }
    await manager.update(OrderOutputEntity, { orderId: order.id }, { status: 'queued' });
    const buckets = this.config.storage.buckets;
    for (const output of outputs) {
      output.status = 'queued';
      const input = files.find((file) => file.id === output.inputFileId);
      if (!input) {
        throw new Error(`output ${output.fileId} has no input file`);
      }
      const name = outputFileName(input.fileName, output.fileId);
      const job: EmbedJob = {
        orderId: order.id,
        accountId: order.accountId,
        outputFileId: output.fileId,
        text: output.watermarkText,
        mediaKind: output.mediaKind,
        // v2 orders carry v2 marks (another key version): v3 extract never detects them (spec 9.5).
        algorithm: order.apiVersion === 'v2' ? 'v2' : 'v3',
        input: { bucket: buckets.inputs, key: ObjectKeys.input(order.accountId, order.id, input.id, input.fileName), fileName: input.fileName },
        output: { bucket: buckets.outputs, key: ObjectKeys.output(order.accountId, order.id, output.fileId, name), fileName: name },
      };
      await this.outbox.add(manager, JobSubjects.watermarkEmbed, job);
    }
  }
}

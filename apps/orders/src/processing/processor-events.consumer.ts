import {
  EventSubjects,
  ExtractCompletedEvent,
  JobSubjects,
  ObjectKeys,
  OutputCompletedEvent,
  OrderDelayedEvent,
  OutputDelayedEvent,
  OutputFailedEvent,
  OutputProcessingEvent,
  outputFileName,
  PackageCompletedEvent,
  packageFileName,
  PackageJob,
  Streams,
} from '@cp/contracts';
import { HandlerContext, MessagingRuntime, OutboxWriter } from '@cp/messaging';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ClassConstructor } from 'class-transformer';
import { EntityManager } from 'typeorm';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrderAggregate, OrdersRepository } from '../orders/orders.repository';
import { ExtractResults } from './extract-results.service';

/** Progress of the processor's jobs, reflected on outputs and orders. */
@Injectable()
export class ProcessorEventsConsumer implements OnModuleInit {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly messaging: MessagingRuntime,
    private readonly repository: OrdersRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly outbox: OutboxWriter,
    private readonly extractResults: ExtractResults,
  ) {}

  onModuleInit(): void {
    this.on('orders-output-processing', EventSubjects.outputProcessing, OutputProcessingEvent, async (manager, aggregate, event) => {
      const output = this.output(aggregate, event.outputFileId);
      if (output?.status === 'queued') {
        await manager.update(OrderOutputEntity, output.fileId, { status: 'processing' });
      }
    });
    this.on('orders-output-completed', EventSubjects.outputCompleted, OutputCompletedEvent, async (manager, aggregate, event) => {
      const output = this.output(aggregate, event.outputFileId);
      if (!output || output.status === 'completed') {
        return;
      }
      output.status = 'completed';
      output.objectKey = event.objectKey;
      await manager.update(OrderOutputEntity, output.fileId, { status: 'completed', objectKey: event.objectKey });
      if (aggregate.outputs.every((candidate) => candidate.status === 'completed')) {
        await this.finish(manager, aggregate);
      }
    });
    this.on('orders-output-failed', EventSubjects.outputFailed, OutputFailedEvent, async (manager, aggregate, event) => {
      const output = this.output(aggregate, event.outputFileId);
      if (output) {
        output.failureCode = event.code;
        await manager.update(OrderOutputEntity, output.fileId, { status: 'failed', failureCode: event.code });
      }
      await this.lifecycle.fail(manager, aggregate, event.code);
    });
    const markDelayed = async (manager: EntityManager, aggregate: OrderAggregate): Promise<void> => {
      aggregate.order.processingDelayed = true;
      await manager.save(aggregate.order);
    };
    this.on('orders-output-delayed', EventSubjects.outputDelayed, OutputDelayedEvent, markDelayed);
    this.on('orders-order-delayed', EventSubjects.orderDelayed, OrderDelayedEvent, markDelayed);
    this.on('orders-extract-completed', EventSubjects.extractCompleted, ExtractCompletedEvent, async (manager, aggregate, event) => {
      await this.extractResults.record(manager, aggregate, {
        detectionStatus: event.detectionStatus,
        reportSupported: event.reportSupported,
        watermarkText: event.watermarkText ?? null,
        confidence: event.confidence,
        method: event.method,
      });
    });
    this.on('orders-package-completed', EventSubjects.packageCompleted, PackageCompletedEvent, async (manager, aggregate, event) => {
      aggregate.order.packageKey = event.objectKey;
      await this.lifecycle.complete(manager, aggregate, {
        download: { bucket: this.config.storage.buckets.outputs, key: event.objectKey, fileName: packageFileName(aggregate.order.id) },
      });
    });
  }

  /** One output: that file is the download. Two or more: a ZIP is packaged first. */
  private async finish(manager: EntityManager, aggregate: OrderAggregate): Promise<void> {
    const { order, outputs, files } = aggregate;
    const bucket = this.config.storage.buckets.outputs;
    const nameOf = (output: OrderOutputEntity): string =>
      outputFileName(files.find((file) => file.id === output.inputFileId)?.fileName ?? 'file', output.fileId);
    if (outputs.length === 1) {
      order.packageKey = outputs[0].objectKey;
      await this.lifecycle.complete(manager, aggregate, { download: { bucket, key: outputs[0].objectKey ?? '', fileName: nameOf(outputs[0]) } });
      return;
    }
    const job: PackageJob = {
      orderId: order.id,
      entries: outputs.map((output) => ({ bucket, key: output.objectKey ?? '', fileName: nameOf(output) })),
      output: { bucket, key: ObjectKeys.package(order.accountId, order.id), fileName: packageFileName(order.id) },
    };
    await this.outbox.add(manager, JobSubjects.watermarkPackage, job);
  }

  private output(aggregate: OrderAggregate, fileId: string): OrderOutputEntity | undefined {
    return aggregate.outputs.find((output) => output.fileId === fileId);
  }

  /** Processor events only touch orders that are still being processed. */
  private on<TEvent extends { orderId: string }>(
    durable: string,
    subject: string,
    payload: ClassConstructor<TEvent>,
    apply: (manager: EntityManager, aggregate: OrderAggregate, event: TEvent) => Promise<void>,
  ): void {
    this.messaging.register({
      durable,
      stream: Streams.events.name,
      filterSubject: subject,
      payload,
      handle: async (event: TEvent, context: HandlerContext) => {
        await context.transaction(async (manager) => {
          const aggregate = await this.repository.lock(manager, event.orderId);
          if (aggregate && aggregate.order.status === 'inProgress') {
            await apply(manager, aggregate, event);
          }
        });
      },
    });
  }
}

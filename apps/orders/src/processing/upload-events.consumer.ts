import { Clock } from '@cp/clock';
import { EventSubjects, FileFailedEvent, FileUploadedEvent, isV2Retired, OrderFailureCode, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderLifecycle } from '../orders/order-lifecycle.service';
import { OrdersRepository } from '../orders/orders.repository';
import { StartProcessingUseCase } from './start-processing.use-case';

/** Uploads detected (or URL fetches finished) move files, and then orders, forward by themselves. */
@Injectable()
export class UploadEventsConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly repository: OrdersRepository,
    private readonly lifecycle: OrderLifecycle,
    private readonly startProcessing: StartProcessingUseCase,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-file-uploaded',
      stream: Streams.events.name,
      filterSubject: EventSubjects.fileUploaded,
      payload: FileUploadedEvent,
      handle: (event, context) =>
        context.transaction(async (manager) => {
          const aggregate = await this.repository.lock(manager, event.orderId);
          const file = aggregate?.files.find((candidate) => candidate.id === event.fileId);
          if (!aggregate || !file || file.status !== 'awaiting_upload' || aggregate.order.status !== 'pending') {
            return;
          }
          file.status = 'uploaded';
          file.size = String(event.size);
          await manager.update(OrderFileEntity, file.id, { status: 'uploaded', size: file.size });
          if (aggregate.files.every((candidate) => candidate.status === 'uploaded')) {
            if (aggregate.order.apiVersion === 'v2' && isV2Retired(this.clock.now())) {
              // Spec 9.4: a v2 order that had not started by the retirement never starts.
              await this.lifecycle.fail(manager, aggregate, OrderFailureCode.WATERMARK_V2_API_SUNSET);
              return;
            }
            await this.startProcessing.execute(manager, aggregate);
          }
        }).then(() => undefined),
    });
    this.messaging.register({
      durable: 'orders-file-failed',
      stream: Streams.events.name,
      filterSubject: EventSubjects.fileFailed,
      payload: FileFailedEvent,
      handle: (event, context) =>
        context.transaction(async (manager) => {
          const aggregate = await this.repository.lock(manager, event.orderId);
          if (aggregate && aggregate.order.status === 'pending') {
            await manager.update(OrderFileEntity, event.fileId, { status: 'failed' });
            await this.lifecycle.fail(manager, aggregate, event.code);
          }
        }).then(() => undefined),
    });
  }
}

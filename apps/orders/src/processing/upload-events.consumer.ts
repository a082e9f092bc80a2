import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { FileFailedUseCase } from './file-failed.use-case';
import { FileUploadedUseCase } from './file-uploaded.use-case';
import { OrderDelayedUseCase } from './order-delayed.use-case';

/** Uploads detected (or URL fetches finished) move files, and then orders, forward by themselves. */
@Injectable()
export class UploadEventsConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly fileUploaded: FileUploadedUseCase,
    private readonly fileFailed: FileFailedUseCase,
    private readonly delayed: OrderDelayedUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-file-uploaded',
      stream: Streams.events.name,
      message: Events.fileUploaded,
      handle: (event, context) => context.transaction((tx) => this.fileUploaded.execute(tx, event)).then(() => undefined),
      // Parked: the order would wait for a file it already has; it shows `processingDelayed` until the replay.
      onExhausted: (event) => this.delayed.execute(event.orderId),
    });
    this.messaging.register({
      durable: 'orders-file-failed',
      stream: Streams.events.name,
      message: Events.fileFailed,
      handle: (event, context) => context.transaction((tx) => this.fileFailed.execute(tx, event)).then(() => undefined),
      onExhausted: (event) => this.delayed.execute(event.orderId),
    });
  }
}

import { Events, packageFileName, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { endsOrderJob, onResult, ResultHandler } from '../order-types/order-type-definition';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ApplyResultUseCase } from './apply-result.use-case';
import { OrderDelayedUseCase } from './order-delayed.use-case';

/** Result events of every order type's workers, plus the ones all types share (ZIP packaging, delays of whole-order jobs). */
@Injectable()
export class OrderResultsConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly types: OrderTypeRegistry,
    private readonly applyResult: ApplyResultUseCase,
    private readonly delayed: OrderDelayedUseCase,
  ) {}

  onModuleInit(): void {
    const shared: ResultHandler[] = [
      // The attempts of an extract or package job (a job of the whole order) ran out.
      onResult('orders-order-delayed', Events.orderDelayed, (order, _event, context) => order.processingDelayed(context.now), endsOrderJob),
      // The processor's ZIP of all outputs is written: the order is complete (the ZIP is its download).
      onResult('orders-package-completed', Events.packageCompleted, (order, event, context) =>
        order.complete(
          context.now,
          {
            download: { bucket: context.buckets.outputs, key: event.objectKey, fileName: packageFileName(order.id) },
            webhookData: this.types.of(order).webhookData(order),
          },
          event.objectKey,
        ),
        endsOrderJob,
      ),
    ];
    for (const handler of [...shared, ...this.types.all().flatMap((definition) => definition.results)]) {
      this.messaging.register({
        durable: handler.durable,
        stream: Streams.events.name,
        message: handler.contract,
        handle: (event, context) => context.transaction((tx) => this.applyResult.execute(tx, handler, event)).then(() => undefined),
        // A worker's result that cannot be applied: the order shows `processingDelayed` until the event is replayed;
        // the job it ends no longer counts against its account's share.
        onExhausted: (event) => this.delayed.execute(handler.orderIdOf(event), handler.endedUnit?.(event)),
      });
    }
  }
}

import { Module } from '@nestjs/common';
import { EndpointsModule } from '../endpoints/endpoints.module';
import { ErasureModule } from '../erasure/erasure.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { DeliverEventUseCase } from './deliver-event.use-case';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DeliveryPruningScheduler } from './delivery-pruning.scheduler';
import { EnqueueOrderEventUseCase } from './enqueue-order-event.use-case';
import { ForgetExpiredOrderDeliveriesUseCase } from './forget-expired-order-deliveries.use-case';
import { OrderExpiredConsumer } from './order-expired.consumer';
import { TestOrderRetentionEndedConsumer } from './test-order-retention-ended.consumer';
import { OrderEventsConsumer } from './order-events.consumer';
import { PruneDeliveriesUseCase } from './prune-deliveries.use-case';
import { RetryEventUseCase } from './retry-event.use-case';
import { RetryFailedRangeUseCase } from './retry-failed-range.use-case';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookHttpSender } from './webhook-http-sender';

@Module({
  imports: [EndpointsModule, NotificationsModule, ErasureModule],
  providers: [
    WebhookDeliveriesRepository,
    WebhookHttpSender,
    DeliverEventUseCase,
    DeliveryDispatcher,
    EnqueueOrderEventUseCase,
    OrderEventsConsumer,
    ForgetExpiredOrderDeliveriesUseCase,
    OrderExpiredConsumer,
    TestOrderRetentionEndedConsumer,
    PruneDeliveriesUseCase,
    DeliveryPruningScheduler,
    RetryEventUseCase,
    RetryFailedRangeUseCase,
  ],
  exports: [WebhookDeliveriesRepository, RetryEventUseCase, RetryFailedRangeUseCase],
})
export class DeliveriesModule {}

import { RpcClientModule } from '@cp/messaging';
import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { RETENTION_ENTITIES, RETENTION_SCHEMA } from './database/entities';
import { RETENTION_MIGRATIONS } from './database/migrations';
import { AccountErasureConsumer } from './erasure/account-erasure.consumer';
import { OrderErasureConsumer } from './erasure/order-erasure.consumer';
import { EraseAccountObjectsUseCase } from './erasure/erase-account-objects.use-case';
import { ErasedPrefixRepository } from './erasure/erased-prefix.repository';
import { ParkedMessagesRepository } from './erasure/parked-messages.repository';
import { RecheckErasedPrefixesUseCase } from './erasure/recheck-erased-prefixes.use-case';
import { RETENTION_CONFIG, RetentionConfig } from './retention.config';
import { FailedOrderReconciliationRepository } from './schedule/failed-order-reconciliation.repository';
import { FailedOrdersClient, FailedOrdersPort } from './schedule/failed-orders.client';
import { OrderExpiryRepository } from './schedule/order-expiry.repository';
import { OrderScheduleConsumer } from './schedule/order-schedule.consumer';
import { OrderSchedulesClient, OrderSchedulesPort } from './schedule/order-schedules.client';
import { ReconcileFailedOrdersUseCase } from './schedule/reconcile-failed-orders.use-case';
import { ReconcileSchedulesUseCase } from './schedule/reconcile-schedules.use-case';
import { ReconciliationScheduler } from './schedule/reconciliation.scheduler';
import { ScheduleOrderExpiryUseCase } from './schedule/schedule-order-expiry.use-case';
import { ScheduleReconciliationRepository } from './schedule/schedule-reconciliation.repository';
import { OrderObjects } from './sweep/order-objects.service';
import { OrdersExpiryClient, OrdersExpiryPort } from './sweep/orders-expiry.client';
import { RetentionEndEventsRepository } from './sweep/retention-end-events.repository';
import { RetentionScheduler } from './sweep/retention.scheduler';
import { SweepExpiredOrdersUseCase } from './sweep/sweep-expired-orders.use-case';

@Module({})
export class AppModule {
  static forRoot(config: RetentionConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'retention',
          schema: RETENTION_SCHEMA,
          core: config,
          storage: config.storage,
          entities: RETENTION_ENTITIES,
          migrations: RETENTION_MIGRATIONS,
        }),
        RpcClientModule.register(config.nats.url, 'retention'),
      ],
      providers: [
        { provide: RETENTION_CONFIG, useValue: config },
        OrderExpiryRepository,
        ScheduleOrderExpiryUseCase,
        OrderScheduleConsumer,
        // The schedule reconciled with orders, for orders whose status events were missed.
        ScheduleReconciliationRepository,
        { provide: OrderSchedulesPort, useClass: OrderSchedulesClient },
        ReconcileSchedulesUseCase,
        // Failed orders reconciled with orders, for those whose `failed` status event was missed.
        FailedOrderReconciliationRepository,
        { provide: FailedOrdersPort, useClass: FailedOrdersClient },
        ReconcileFailedOrdersUseCase,
        ReconciliationScheduler,
        OrderObjects,
        { provide: OrdersExpiryPort, useClass: OrdersExpiryClient },
        RetentionEndEventsRepository,
        SweepExpiredOrdersUseCase,
        RetentionScheduler,
        // An operator's account erasure: every object of the account, and its schedules.
        // Erased prefixes looked at again, for objects written late by the jobs in flight at the erasure.
        ErasedPrefixRepository,
        ParkedMessagesRepository,
        RecheckErasedPrefixesUseCase,
        EraseAccountObjectsUseCase,
        AccountErasureConsumer,
        OrderErasureConsumer,
      ],
    };
  }
}

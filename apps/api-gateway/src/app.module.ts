import { RpcClientModule } from '@cp/messaging';
import { ServiceKitModule } from '@cp/runtime';
import { DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module';
import { AuthenticatedKeyCache } from './auth/authenticated-key-cache';
import { KeyRevocationListener } from './auth/key-revocation.listener';
import { GATEWAY_ENTITIES, GATEWAY_SCHEMA } from './database/entities';
import { GATEWAY_MIGRATIONS } from './database/migrations';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway.config';
import { OrderTypesHttpModule } from './order-types-http.module';
import { OrderReadsService } from './orders/order-reads.service';
import { OrdersController } from './orders/orders.controller';
import { RateLimitGrantRepository } from './rate-limit/rate-limit-grant.repository';
import { RateLimiterService } from './rate-limit/rate-limiter.service';
import { ResultsController } from './results/results.controller';
import { RelaySlots } from './results/relay-slots';
import { RecordedTestUploads } from './test-uploads/recorded-test-uploads';
import { StorageRelay } from './results/storage-relay';
import { TestUploadsController } from './test-uploads/test-uploads.controller';
import { ReportsHttpModule } from './reports/reports-http.module';
import { V2HttpModule } from './v2/v2-http.module';
import { WebhooksHttpModule } from './webhooks/webhooks-http.module';

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot({
          name: 'api-gateway',
          schema: GATEWAY_SCHEMA,
          core: config,
          entities: GATEWAY_ENTITIES,
          migrations: GATEWAY_MIGRATIONS,
          httpLoggerInstalledByApp: true,
          // The public edge answers outages of its dependencies itself (JSON 503, Retry-After): it stays in its Service.
          readinessGatedOnDependencies: false,
        }),
        RpcClientModule.register(config.nats.url, 'api-gateway', config.rpcTimeoutMs),
        AccountsModule,
        WebhooksHttpModule,
        ReportsHttpModule,
        OrderTypesHttpModule,
        // After the webhooks module (route order).
        V2HttpModule,
      ],
      controllers: [OrdersController, TestUploadsController, ResultsController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        AuthenticatedKeyCache,
        KeyRevocationListener,
        RateLimitGrantRepository,
        RateLimiterService,
        OrderReadsService,
        StorageRelay,
        RelaySlots,
        RecordedTestUploads,
      ],
    };
  }
}

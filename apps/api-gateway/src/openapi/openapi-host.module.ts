import { Clock, SystemClock } from '@cp/clock';
import { RpcClient } from '@cp/messaging';
import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { AppModule } from '../app.module';
import { GATEWAY_CONFIG, loadGatewayConfig } from '../gateway.config';
import { OrderReadsService } from '../orders/order-reads.service';
import { RelaySlots } from '../results/relay-slots';
import { StorageRelay } from '../results/storage-relay';
import { RecordedTestUploads } from '../test-uploads/recorded-test-uploads';

/** Stands in for NATS and the clock: the document and the route table need the controllers, not their effects. */
@Global()
@Module({})
class OfflineDependenciesModule {
  static register(): DynamicModule {
    const rpc: Partial<RpcClient> = {};
    return {
      module: OfflineDependenciesModule,
      providers: [
        { provide: RpcClient, useValue: rpc },
        { provide: Clock, useValue: new SystemClock() },
      ],
      exports: [RpcClient, Clock],
    };
  }
}

function hasControllers(entry: unknown): entry is Type {
  return typeof entry === 'function' && ((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, entry) as unknown[] | undefined) ?? []).length > 0;
}

/**
 * The gateway's HTTP surface without a database or NATS: the controllers of `AppModule` itself and of the
 * modules it imports that declare controllers (taken from AppModule, so a new route cannot be missed).
 */
@Module({})
export class OpenApiHostModule {
  static register(): DynamicModule {
    const config = loadGatewayConfig({ DATABASE_URL: 'postgres://offline/offline' });
    const app = AppModule.forRoot(config);
    return {
      module: OpenApiHostModule,
      imports: [OfflineDependenciesModule.register(), ...(app.imports ?? []).filter(hasControllers)],
      controllers: app.controllers ?? [],
      // The results route's relay and slots only read their configuration when a request comes; the order reads only
      // batch over the stand-in RpcClient; the test-upload sink's memory of recorded tokens is empty.
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }, StorageRelay, RelaySlots, OrderReadsService, RecordedTestUploads],
    };
  }
}

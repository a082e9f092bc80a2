import { Clock, createClock } from '@cp/clock';
import { CoreConfig, StorageConfig } from '@cp/config';
import { DatabaseModule } from '@cp/database';
import { HealthModule, MetricsServer, ReadinessRegistry } from '@cp/health';
import { LoggingModule } from '@cp/logging';
import { MESSAGING_ENTITIES, MessagingModule, MessagingRuntime, NatsConnectionService } from '@cp/messaging';
import { ObjectStorage, StorageModule } from '@cp/storage';
import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource, MixedList } from 'typeorm';
import { OutboxRelayLoop } from './outbox-relay.loop';

export interface ServiceKitOptions {
  /** Service name: logs, NATS connection name, RPC queue group. */
  name: string;
  /** PostgreSQL schema the service owns. */
  schema: string;
  core: CoreConfig;
  storage?: StorageConfig;
  // TypeORM's own option types: classes of entities and migrations.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
  /** The app installs the access log itself as its first middleware (see createAccessLog). */
  httpLoggerInstalledByApp?: boolean;
  /**
   * Whether /ready fails while PostgreSQL, NATS or storage does (default true). The public gateway says false: it
   * answers those outages itself (503 `WATERMARK_V2_UNAVAILABLE`, `Retry-After`), which it cannot do once the
   * outage has taken every replica out of its Service. /ready still lists each dependency's state.
   */
  readinessGatedOnDependencies?: boolean;
}

const READINESS_OPTIONS = Symbol('READINESS_OPTIONS');

@Injectable()
export class ReadinessWiring implements OnModuleInit {
  constructor(
    private readonly registry: ReadinessRegistry,
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly nats: NatsConnectionService,
    private readonly messaging: MessagingRuntime,
    @Inject(READINESS_OPTIONS) private readonly options: { gating: boolean },
    @Optional() private readonly storage?: ObjectStorage,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      'postgres',
      async () => {
        await this.dataSource.query('SELECT 1');
      },
      this.options,
    );
    this.registry.register('nats', () => this.nats.ping(), this.options);
    // preStop (POST /drain): no new jobs or events are pulled; the ones in flight finish (within DRAIN_TIMEOUT_SECONDS).
    this.registry.onDrain(() => this.messaging.stopConsumers());
    if (this.storage) {
      const storage = this.storage;
      this.registry.register('storage', () => storage.ping(), this.options);
    }
  }
}

const METRICS_ADDRESS = Symbol('METRICS_ADDRESS');

/** Prometheus metrics on the internal port (`METRICS_PORT`), from start to shutdown; the public port has no /metrics. */
@Injectable()
class MetricsEndpoint implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private readonly server: MetricsServer;

  constructor(@Inject(METRICS_ADDRESS) private readonly address: CoreConfig['metrics']) {
    this.server = new MetricsServer(address);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.address.port !== 0) {
      const port = await this.server.start();
      this.logger.log({ host: this.address.host, port }, 'metrics served on the internal port');
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.server.stop();
  }
}

/**
 * Everything a service process needs besides its features: JSON logs, its migrated schema, NATS with
 * outbox and consumers, storage when used, the clock, /health and /ready, and /metrics on the internal metrics port.
 */
@Global()
@Module({})
export class ServiceKitModule {
  static forRoot(options: ServiceKitOptions): DynamicModule {
    const entities = [...(Array.isArray(options.entities) ? options.entities : []), ...MESSAGING_ENTITIES];
    return {
      module: ServiceKitModule,
      imports: [
        LoggingModule.forRoot({
          service: options.name,
          level: options.core.log.level,
          installedByApp: options.httpLoggerInstalledByApp,
        }),
        DatabaseModule.forService({
          url: options.core.database.url,
          schema: options.schema,
          entities,
          migrations: options.migrations,
          poolSize: options.core.database.poolSize,
          preparedStatements: options.core.database.preparedStatements,
          statementTimeoutMs: options.core.database.statementTimeoutMs,
          idleInTransactionTimeoutMs: options.core.database.idleInTransactionTimeoutMs,
          connectionTimeoutMs: options.core.database.connectionTimeoutMs,
          applicationName: options.name,
        }),
        MessagingModule.forRoot({
          url: options.core.nats.url,
          name: options.name,
          streamReplicas: options.core.nats.streamReplicas,
          streamMaxBytes: options.core.nats.streamMaxBytes,
          outboxPollIntervalMs: options.core.outbox.pollIntervalMs,
          drainTimeoutMs: options.core.drain.timeoutMs,
        }),
        HealthModule,
        ...(options.storage ? [StorageModule.forRoot(options.storage)] : []),
      ],
      providers: [
        { provide: Clock, useValue: createClock(options.core.clock.offsetFile) },
        { provide: METRICS_ADDRESS, useValue: options.core.metrics },
        { provide: READINESS_OPTIONS, useValue: { gating: options.readinessGatedOnDependencies ?? true } },
        ReadinessWiring,
        OutboxRelayLoop,
        MetricsEndpoint,
      ],
      exports: [Clock],
    };
  }
}

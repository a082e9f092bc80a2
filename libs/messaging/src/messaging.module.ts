import {
  BeforeApplicationShutdown,
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConsumerDefinition, EventConsumer } from './event-consumer';
import { NatsConnectionService, NatsOptions } from './nats-connection.service';
import { OutboxRelay } from './outbox-relay';
import { OutboxWriter } from './outbox-writer';

export interface MessagingModuleOptions extends NatsOptions {
  outboxPollIntervalMs: number;
}

/**
 * Lifecycle of the service's messaging: connect (and ensure streams) at init, start the outbox relay and
 * every registered consumer once all modules are ready, stop them before the connection drains.
 */
@Injectable()
export class MessagingRuntime implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  // Each consumer has its own payload type; the runtime only starts and stops them.
  private readonly definitions: ConsumerDefinition<object>[] = [];
  private readonly consumers: EventConsumer<object>[] = [];

  constructor(
    private readonly nats: NatsConnectionService,
    private readonly relay: OutboxRelay,
    @Inject(DataSource) private readonly dataSource: DataSource,
  ) {}

  register<TData extends object>(definition: ConsumerDefinition<TData>): void {
    this.definitions.push(definition);
  }

  async onModuleInit(): Promise<void> {
    await this.nats.connect();
  }

  async onApplicationBootstrap(): Promise<void> {
    this.relay.start();
    for (const definition of this.definitions) {
      const consumer = new EventConsumer(definition, this.dataSource, this.nats.js, this.nats.jsm);
      await consumer.start();
      this.consumers.push(consumer);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
    await this.relay.stop();
  }
}

@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: MessagingModuleOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: NatsConnectionService, useValue: new NatsConnectionService(options) },
        {
          provide: OutboxRelay,
          inject: [DataSource, NatsConnectionService],
          useFactory: (dataSource: DataSource, nats: NatsConnectionService) =>
            new OutboxRelay(dataSource, () => nats.js, { pollIntervalMs: options.outboxPollIntervalMs }),
        },
        OutboxWriter,
        MessagingRuntime,
      ],
      exports: [NatsConnectionService, OutboxRelay, OutboxWriter, MessagingRuntime],
    };
  }
}

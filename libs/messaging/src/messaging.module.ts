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
import { tableSql } from '@cp/database';
import { DataSource } from 'typeorm';
import { setQueueMetricsSource } from './consumer-metrics';
import { ConsumerDefinition, EventConsumer } from './event-consumer';
import { JobAttemptsRecorder } from './job-attempts.recorder';
import { JobAttemptsRepository } from './job-attempts.repository';
import { OutboxEventEntity } from './outbox-event.entity';
import { NatsConnectionService, NatsOptions } from './nats-connection.service';
import { OUTBOX_LAGGING_ROWS, OutboxRelay } from './outbox-relay';
import { OutboxCommitSignal, OutboxWriter } from './outbox-writer';

export interface MessagingModuleOptions extends NatsOptions {
  outboxPollIntervalMs: number;
  /** How long stopping waits for the messages being handled before it gives them back (`EventConsumer.stop`). */
  drainTimeoutMs: number;
}

const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

/**
 * Lifecycle of the service's messaging: connect (and ensure streams) at init, start every registered
 * consumer once all modules are ready, stop them before the connection drains. (The outbox relay runs in
 * the services' periodic loop, `OutboxRelayLoop` of `@cp/runtime`.)
 */
@Injectable()
export class MessagingRuntime implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  // Each consumer has its own payload type; the runtime only starts and stops them.
  private readonly definitions: ConsumerDefinition<object>[] = [];
  private readonly consumers: EventConsumer<object>[] = [];
  private readonly attempts: JobAttemptsRecorder;

  /** Set by the first stop (the preStop drain), kept by the next (SIGTERM): one budget for both. */
  private drainDeadline: number | undefined;

  constructor(
    private readonly nats: NatsConnectionService,
    @Inject(DataSource) private readonly dataSource: DataSource,
    attempts: JobAttemptsRepository,
    @Inject(MESSAGING_OPTIONS) private readonly options: Pick<MessagingModuleOptions, 'drainTimeoutMs'>,
  ) {
    this.attempts = new JobAttemptsRecorder(attempts);
  }

  register<TData extends object>(definition: ConsumerDefinition<TData>): void {
    this.definitions.push(definition);
  }

  async onModuleInit(): Promise<void> {
    await this.nats.connect();
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const definition of this.definitions) {
      const consumer = new EventConsumer(definition, this.dataSource, this.nats.js, this.nats.jsm, this.attempts);
      await consumer.start();
      this.consumers.push(consumer);
    }
    setQueueMetricsSource({
      jsm: () => this.nats.jsm,
      consumers: () => this.definitions.map(({ stream, durable }) => ({ stream, durable })),
      outbox: () => this.outboxLag(),
    });
  }

  /**
   * Unpublished outbox rows and the age of the oldest, apart from the rows the relay parked and the jobs held back by
   * their account's share (they wait for that account's earlier jobs, not for the relay: counted as `held`, left out
   * of the lag an alert watches); jobs of an ended order, never to be sent, in none. A held job the relay has claimed
   * once (`claimed_until` set: its share let it go) is waiting for the relay again, and counts as lag: a JOBS stream
   * that refuses it (full) keeps it claimed between offers, and outside review such jobs showed as `held` and in no
   * lag, so a full work queue of the orders service raised no outbox alert. (A batch given back after a failed
   * publish is unclaimed again, but the events of that batch show the lag.)
   */
  private async outboxLag(): Promise<{ pending: number; oldestAgeSeconds: number; parked: number; held: number }> {
    const table = tableSql(this.dataSource.manager, OutboxEventEntity);
    const lagging = OUTBOX_LAGGING_ROWS;
    const rows: Array<{ pending: number; parked: number; held: number; age: number | null }> = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE ${lagging})::int AS pending, count(*) FILTER (WHERE parked_at IS NOT NULL)::int AS parked,
              count(*) FILTER (WHERE parked_at IS NULL AND share_key IS NOT NULL AND share_released_at IS NULL AND claimed_until IS NULL)::int AS held,
              (SELECT EXTRACT(EPOCH FROM now() - created_at)::float8 FROM ${table} WHERE published_at IS NULL AND ${lagging} ORDER BY seq LIMIT 1) AS age
         FROM ${table} WHERE published_at IS NULL`,
    );
    return { pending: rows[0]?.pending ?? 0, oldestAgeSeconds: Math.max(0, rows[0]?.age ?? 0), parked: rows[0]?.parked ?? 0, held: rows[0]?.held ?? 0 };
  }

  /**
   * Stops pulling new messages and waits for the ones being handled (drain before shutdown), for at most
   * `drainTimeoutMs` from the first call: what is still being handled then goes back to the broker, so the rest of
   * the shutdown runs within the pod's grace period.
   */
  async stopConsumers(): Promise<void> {
    this.drainDeadline ??= Date.now() + this.options.drainTimeoutMs;
    const deadline = this.drainDeadline;
    await Promise.all(this.consumers.map((consumer) => consumer.stop(deadline)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    setQueueMetricsSource(undefined);
    await this.stopConsumers();
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
            new OutboxRelay(dataSource, () => nats.js, { pollIntervalMs: options.outboxPollIntervalMs }, () => nats.nc.info?.max_payload),
        },
        { provide: OutboxCommitSignal, inject: [DataSource], useFactory: (dataSource: DataSource) => OutboxCommitSignal.on(dataSource) },
        OutboxWriter,
        { provide: MESSAGING_OPTIONS, useValue: { drainTimeoutMs: options.drainTimeoutMs } },
        MessagingRuntime,
        JobAttemptsRepository,
      ],
      exports: [NatsConnectionService, OutboxRelay, OutboxCommitSignal, OutboxWriter, MessagingRuntime, JobAttemptsRepository],
    };
  }
}

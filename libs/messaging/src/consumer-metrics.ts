import { PARKED_SUBJECT_PREFIX, Streams } from '@cp/contracts';
import { Logger } from '@nestjs/common';
import type { JetStreamManager, StoredMsg } from 'nats';

/** nats.js's direct-get API (its `DirectStreamAPI` type is not exported), the one call used here. */
interface DirectGet {
  getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<StoredMsg>;
}
import { Gauge } from 'prom-client';

/** A durable consumer whose queue this process reports (every replica reports the same figures: use `max by`). */
export interface ObservedConsumer {
  stream: string;
  durable: string;
}

/** What the scrape-time gauges read; one per process, filled by `MessagingRuntime` (and the outbox's lag). */
export interface QueueMetricsSource {
  jsm(): JetStreamManager;
  consumers(): readonly ObservedConsumer[];
  /**
   * Unpublished outbox rows, the age in seconds of the oldest (0 when none), the rows parked by the relay, and the
   * jobs held back by their account's share (`OutboxShare`: waiting for that account's earlier jobs, not for the relay).
   */
  outbox(): Promise<{ pending: number; oldestAgeSeconds: number; parked: number; held: number }>;
}

const logger = new Logger('QueueMetrics');
let source: QueueMetricsSource | undefined;

/** The process's source of queue figures; `undefined` stops reporting them (tests, shutdown). */
export function setQueueMetricsSource(next: QueueMetricsSource | undefined): void {
  source = next;
}

interface ConsumerFigures {
  durable: string;
  pending: number;
  ackPending: number;
  oldestAgeSeconds: number;
  parked: number;
}

/** The manager's direct-get API: nats.js has it on every manager, but its `JetStreamManager` type leaves it out. */
function directApiOf(jsm: JetStreamManager): DirectGet {
  const { direct } = jsm as JetStreamManager & { direct?: DirectGet };
  if (!direct) {
    throw new Error('this nats client has no direct get API');
  }
  return direct;
}

/**
 * Reads the figures of every observed consumer from JetStream. Age: the first message of the consumer's subject
 * after its ack floor (the oldest one not yet acknowledged), by a direct get, which any replica of the stream
 * answers. A figure that cannot be read is left out rather than reported as 0, which would hide a stuck queue.
 */
async function readConsumers(current: QueueMetricsSource): Promise<ConsumerFigures[]> {
  const jsm = current.jsm();
  const figures: ConsumerFigures[] = [];
  let parkedBySubject: Record<string, number> = {};
  try {
    const parked = await jsm.streams.info(Streams.parked.name, { subjects_filter: `${PARKED_SUBJECT_PREFIX}.>` });
    parkedBySubject = parked.state.subjects ?? {};
  } catch (error) {
    logger.warn({ err: error }, 'could not read the PARKED stream');
  }
  for (const { stream, durable } of current.consumers()) {
    try {
      const info = await jsm.consumers.info(stream, durable);
      let oldestAgeSeconds = 0;
      if (info.num_pending + info.num_ack_pending > 0) {
        const oldest = await directApiOf(jsm).getMessage(stream, {
          seq: info.ack_floor.stream_seq + 1,
          next_by_subj: info.config.filter_subject ?? '>',
        });
        oldestAgeSeconds = Math.max(0, (Date.now() - oldest.time.getTime()) / 1000);
      }
      figures.push({
        durable,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        oldestAgeSeconds,
        parked: parkedBySubject[`${PARKED_SUBJECT_PREFIX}.${durable}`] ?? 0,
      });
    } catch (error) {
      logger.warn({ err: error, durable }, 'could not read the consumer');
    }
  }
  return figures;
}

/**
 * One read per scrape, shared by the gauges it fills: prom-client runs every metric's `collect` at once
 * (`Promise.all`), so each gauge awaits the same read and sets only itself.
 */
function sharedRead<T>(read: (current: QueueMetricsSource) => Promise<T>): () => Promise<T | undefined> {
  let inFlight: Promise<T> | undefined;
  return () => {
    const current = source;
    if (!current) {
      return Promise.resolve(undefined);
    }
    inFlight ??= read(current).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

const readShared = sharedRead(readConsumers);
const readOutbox = sharedRead((current) => current.outbox());

/** A gauge per consumer, set from the shared read when Prometheus scrapes (it costs nothing between scrapes). */
function consumerGauge(name: string, help: string, set: (gauge: Gauge, figure: ConsumerFigures) => void, labelNames: string[] = ['consumer']): Gauge {
  return new Gauge({
    name,
    help,
    labelNames,
    async collect(this: Gauge) {
      const figures = await readShared();
      this.reset();
      for (const figure of figures ?? []) {
        set(this, figure);
      }
    },
  });
}

async function collectOutbox(gauge: 'pending' | 'age' | 'parked' | 'held'): Promise<void> {
  try {
    const outbox = await readOutbox();
    if (outbox) {
      const figures = {
        pending: [queueMetrics.outboxUnpublished, outbox.pending],
        age: [queueMetrics.outboxOldestAge, outbox.oldestAgeSeconds],
        parked: [queueMetrics.outboxParked, outbox.parked],
        held: [queueMetrics.outboxHeld, outbox.held],
      } as const;
      const [metric, value] = figures[gauge];
      metric.set(value);
    }
  } catch (error) {
    logger.warn({ err: error }, 'could not read the outbox lag');
  }
}

/** Queue figures read when Prometheus scrapes; every replica reports the same (`max by (consumer)` in queries). */
export const queueMetrics = {
  consumerPending: consumerGauge(
    'messaging_consumer_pending_messages',
    'Messages of the consumer not yet delivered (state="waiting") or delivered and not yet acknowledged (state="in_flight")',
    (gauge, figure) => {
      gauge.set({ consumer: figure.durable, state: 'waiting' }, figure.pending);
      gauge.set({ consumer: figure.durable, state: 'in_flight' }, figure.ackPending);
    },
    ['consumer', 'state'],
  ),
  consumerOldestAge: consumerGauge(
    'messaging_consumer_oldest_message_age_seconds',
    'Age of the oldest message the consumer has not acknowledged (0 when its queue is empty)',
    (gauge, figure) => gauge.set({ consumer: figure.durable }, figure.oldestAgeSeconds),
  ),
  parked: consumerGauge(
    'messaging_parked_messages',
    'Messages parked on parked.<consumer> (attempts used up), until replayed or discarded',
    (gauge, figure) => gauge.set({ consumer: figure.durable }, figure.parked),
  ),
  outboxOldestAge: new Gauge({
    name: 'outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest outbox event not yet relayed to JetStream (0 when none): the outbox lag',
    collect: () => collectOutbox('age'),
  }),
  outboxUnpublished: new Gauge({
    name: 'outbox_events_unpublished',
    help: 'Outbox events not yet relayed to JetStream, read at scrape time',
    collect: () => collectOutbox('pending'),
  }),
  outboxParked: new Gauge({
    name: 'outbox_events_parked',
    help: 'Outbox events parked by the relay (the NATS server can never accept them), kept 30 days for an operator, read at scrape time',
    collect: () => collectOutbox('parked'),
  }),
  outboxHeld: new Gauge({
    name: 'outbox_jobs_held',
    help: "Jobs held back in the outbox while their account's earlier jobs of the same queue run (per-account share), read at scrape time",
    collect: () => collectOutbox('held'),
  }),
};

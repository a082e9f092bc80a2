// Real NATS JetStream: the queue gauges read what the broker holds for a consumer (waiting, in flight, the age
// of its oldest unacknowledged message, its parked messages), at scrape time.
import { PARKED_SUBJECT_PREFIX, StreamDefinition, Streams } from '@cp/contracts';
import { testInfra, uniqueName } from '@cp/testing';
import { AckPolicy, connect, JetStreamManager, NatsConnection } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { register } from 'prom-client';
import { setQueueMetricsSource } from './consumer-metrics';
import { ensureStreams } from './jetstream-setup';

const encoder = new TextEncoder();

/** The value of one sample of the registry's text output, or undefined when the line is absent. */
async function sample(name: string, labels: string): Promise<number | undefined> {
  const text = await register.metrics();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}}`) || (labels === '' && candidate.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('queue metrics (real NATS JetStream)', () => {
  const prefix = uniqueName('itq');
  const durable = `${prefix}-work`;
  const stream: StreamDefinition = { name: prefix.toUpperCase(), subjects: [`${prefix}.>`], retention: 'workqueue', maxAgeSeconds: 600, duplicateWindowSeconds: 60 };
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureStreams(jsm, [stream, Streams.parked]);
    await jsm.consumers.add(stream.name, { durable_name: durable, ack_policy: AckPolicy.Explicit, filter_subject: `${prefix}.work`, ack_wait: 60_000_000_000 });
    setQueueMetricsSource({
      jsm: () => jsm,
      consumers: () => [{ stream: stream.name, durable }],
      outbox: async () => ({ pending: 7, oldestAgeSeconds: 12.5, parked: 2, held: 40 }),
    });
  });

  afterAll(async () => {
    setQueueMetricsSource(undefined);
    await jsm.streams.delete(stream.name);
    await jsm.streams.purge(Streams.parked.name, { filter: `${PARKED_SUBJECT_PREFIX}.${durable}` });
    await nc.close();
  });

  it('an empty queue: nothing waiting, age 0, nothing parked', async () => {
    expect(await sample('messaging_consumer_pending_messages', `consumer="${durable}",state="waiting"`)).toBe(0);
    expect(await sample('messaging_consumer_oldest_message_age_seconds', `consumer="${durable}"`)).toBe(0);
    expect(await sample('messaging_parked_messages', `consumer="${durable}"`)).toBe(0);
  });

  it('counts waiting and in-flight messages, ages the oldest unacknowledged one of its own subject, and counts its parked messages', async () => {
    const js = nc.jetstream();
    await js.publish(`${prefix}.work`, encoder.encode('first'));
    // A message of another subject of the same stream, younger: the age must be that of the consumer's own.
    await sleep(1500);
    const afterPause = Date.now();
    await js.publish(`${prefix}.other`, encoder.encode('not this consumer'));
    await js.publish(`${prefix}.work`, encoder.encode('second'));
    await js.publish(`${prefix}.work`, encoder.encode('third'));
    await js.publish(`${PARKED_SUBJECT_PREFIX}.${durable}`, encoder.encode('parked'));
    const consumer = await js.consumers.get(stream.name, durable);
    const first = await consumer.next({ expires: 5000 });
    expect(first?.string()).toBe('first');

    expect(await sample('messaging_consumer_pending_messages', `consumer="${durable}",state="waiting"`)).toBe(2);
    expect(await sample('messaging_consumer_pending_messages', `consumer="${durable}",state="in_flight"`)).toBe(1);
    expect(await sample('messaging_consumer_oldest_message_age_seconds', `consumer="${durable}"`)).toBeGreaterThanOrEqual(1.5);
    expect(await sample('messaging_parked_messages', `consumer="${durable}"`)).toBe(1);

    first?.ack();
    const second = await consumer.next({ expires: 5000 });
    second?.ack();
    await second?.ackAck();
    // 'first' and 'second' are acknowledged: the oldest left is 'third', published after the pause, so its age is
    // at most the time since the pause ended ('first' would be at least 1.5 s older than that).
    expect(await sample('messaging_consumer_pending_messages', `consumer="${durable}",state="waiting"`)).toBe(1);
    const age = await sample('messaging_consumer_oldest_message_age_seconds', `consumer="${durable}"`);
    expect(age).toBeLessThanOrEqual((Date.now() - afterPause) / 1000 + 0.5);
  });

  it('reports the outbox lag and the parked outbox rows its source gives', async () => {
    expect(await sample('outbox_events_unpublished', '')).toBe(7);
    expect(await sample('outbox_oldest_unpublished_age_seconds', '')).toBe(12.5);
    expect(await sample('outbox_jobs_held', '')).toBe(40);
    expect(await sample('outbox_events_parked', '')).toBe(2);
  });
});

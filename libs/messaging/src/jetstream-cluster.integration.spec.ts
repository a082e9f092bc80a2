// Real three-node JetStream cluster (tools/stack/test-infra.ts starts it): stream replication as configured,
// changed in place on a live stream with its messages and consumers, and refused at start when the cluster
// is too small for it.
import { StreamDefinition } from '@cp/contracts';
import { testInfra, uniqueName, waitUntil } from '@cp/testing';
import { IsString } from 'class-validator';
import { connect, JetStreamManager, NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventConsumer } from './event-consumer';
import { checkStreamReplicas, ensureStreams, existingStreamPeers } from './jetstream-setup';
import { NatsConnectionService, natsServers } from './nats-connection.service';

class NotePayload {
  @IsString()
  note!: string;
}

describe('JetStream replication on a three-node cluster', () => {
  const prefix = uniqueName('itr');
  const stream: StreamDefinition = { name: prefix.toUpperCase(), subjects: [`${prefix}.>`], retention: 'limits', maxAgeSeconds: 600, duplicateWindowSeconds: 600 };
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    expect(testInfra.natsClusterUrl).toMatch(/^nats:\/\/.+,nats:\/\/.+,nats:\/\/.+/);
    nc = await connect({ servers: natsServers(testInfra.natsClusterUrl) });
    jsm = await nc.jetstreamManager();
  });

  afterAll(async () => {
    await jsm.streams.delete(stream.name).catch(() => undefined);
    await nc.drain();
  });

  /** Peers besides the leader that hold a current copy (0 for one copy). */
  async function currentFollowers(kind: 'stream' | 'consumer', durable = ''): Promise<number> {
    const info = kind === 'stream' ? await jsm.streams.info(stream.name) : await jsm.consumers.info(stream.name, durable);
    return (info.cluster?.replicas ?? []).filter((replica) => replica.current).length;
  }

  it('scales a live stream from one copy to three and back in place, keeping its messages; its consumer follows', async () => {
    await ensureStreams(jsm, [stream], { replicas: 1 });
    expect((await jsm.streams.info(stream.name)).config.num_replicas).toBe(1);
    const subject = `${prefix}.note.added`;
    const js = nc.jetstream();
    for (let index = 0; index < 5; index += 1) {
      await js.publish(subject, new TextEncoder().encode(JSON.stringify({ eventId: randomUUID(), data: { note: `n${index}` } })));
    }
    // The consumer as the services make it; its handler never opens a transaction, so the data source stays unused.
    const durable = `${prefix}-notes`;
    const handled: string[] = [];
    const consumer = new EventConsumer<NotePayload>(
      {
        durable,
        stream: stream.name,
        filterSubject: subject,
        payload: NotePayload,
        parkOnlyBecause: 'a test message',
        handle: async (data) => {
          handled.push(data.note);
        },
      },
      new DataSource({ type: 'postgres' }),
      js,
      jsm,
    );
    await consumer.start();
    await waitUntil(async () => handled.length === 5, 20_000, 200);
    await consumer.stop();
    expect((await jsm.consumers.info(stream.name, durable)).config.num_replicas ?? 0).toBe(0);

    await ensureStreams(jsm, [stream], { replicas: 3 });
    expect((await jsm.streams.info(stream.name)).config.num_replicas).toBe(3);
    await waitUntil(async () => (await currentFollowers('stream')) === 2 && (await currentFollowers('consumer', durable)) === 2, 20_000, 200);
    const scaled = await jsm.streams.info(stream.name);
    expect(scaled.state.messages).toBe(5);
    expect(await existingStreamPeers(jsm, [stream, { ...stream, name: `${stream.name}_NONE` }])).toBe(3);
    expect((await jsm.consumers.info(stream.name, durable)).ack_floor.stream_seq).toBe(5);

    // Running again (every start of every replica) changes nothing; one copy again is also done in place.
    await ensureStreams(jsm, [stream], { replicas: 3 });
    expect((await jsm.streams.info(stream.name)).config.num_replicas).toBe(3);
    await ensureStreams(jsm, [stream], { replicas: 1 });
    await waitUntil(async () => (await jsm.streams.info(stream.name)).cluster?.replicas === undefined || (await currentFollowers('stream')) === 0, 20_000, 200);
    expect((await jsm.streams.info(stream.name)).state.messages).toBe(5);
  });

  it('checks the replication against what the server reports: three of three nodes, not four, not three on a lone server, three with one node down', async () => {
    expect(nc.info?.connect_urls).toHaveLength(3);
    expect(() => checkStreamReplicas(3, nc.info ?? { server_name: '' })).not.toThrow();
    expect(() => checkStreamReplicas(4, nc.info ?? { server_name: '' })).toThrow(/NATS_STREAM_REPLICAS=4 needs .* at least 4 nodes; cluster \S+ has 3/);
    // A node down: the server lists two, but the existing streams are placed on three, so a restarting service starts.
    const oneDown = { server_name: 'n1', cluster: 'cp-test', connect_urls: ['127.0.0.1:1', '127.0.0.1:2'] };
    expect(() => checkStreamReplicas(3, oneDown, 3)).not.toThrow();
    expect(() => checkStreamReplicas(3, oneDown, 0)).toThrow(/cluster cp-test has 2/);
    const lone = await connect({ servers: testInfra.natsUrl });
    try {
      expect(() => checkStreamReplicas(1, lone.info ?? { server_name: '' })).not.toThrow();
      expect(() => checkStreamReplicas(3, lone.info ?? { server_name: '' })).toThrow(/NATS_STREAM_REPLICAS=3 .* is not clustered/);
    } finally {
      await lone.close();
    }
  });

  it('a service connects with the whole server list and makes its streams at the configured replication', async () => {
    const own: StreamDefinition = { ...stream, name: `${stream.name}_SVC`, subjects: [`${prefix}svc.>`] };
    const service = new NatsConnectionService({ url: testInfra.natsClusterUrl.split(',').join(' , '), name: 'it-replicas', streams: [own], streamReplicas: 3 });
    await service.connect();
    try {
      expect((await service.jsm.streams.info(own.name)).config.num_replicas).toBe(3);
      await service.jsm.streams.delete(own.name);
    } finally {
      await service.onApplicationShutdown();
    }
    const tooMany = new NatsConnectionService({ url: testInfra.natsClusterUrl, name: 'it-replicas', streams: [own], streamReplicas: 5 });
    await expect(tooMany.connect()).rejects.toThrow(/NATS_STREAM_REPLICAS=5/);
    await tooMany.onApplicationShutdown();
  });
});

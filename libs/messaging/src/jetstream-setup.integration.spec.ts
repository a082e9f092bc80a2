// Real NATS JetStream: the streams' size bounds (NATS_STREAM_MAX_MIB) and what a full stream does.
import { ALL_STREAMS, StreamDefinition } from '@cp/contracts';
import { testInfra, uniqueName } from '@cp/testing';
import { connect, DiscardPolicy, JetStreamManager, NatsConnection, NatsError } from 'nats';
import { ensureStreams, RESERVED_SHARES } from './jetstream-setup';

describe('stream size bounds (real NATS)', () => {
  const prefix = uniqueName('it_bounds');
  const MIB = 1024 * 1024;
  /** Shaped like the platform's: a limits stream that drops its oldest, a queue that refuses new messages. */
  const dropsOld: StreamDefinition = { name: `${prefix}_OLD`.toUpperCase(), subjects: [`${prefix}.old.>`], retention: 'limits', maxAgeSeconds: 600, duplicateWindowSeconds: 60, sizeShare: 0.5, discard: 'old' };
  const refusesNew: StreamDefinition = { name: `${prefix}_NEW`.toUpperCase(), subjects: [`${prefix}.new.>`], retention: 'workqueue', maxAgeSeconds: 600, duplicateWindowSeconds: 60, sizeShare: 0.5, discard: 'new' };
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
  });

  afterAll(async () => {
    for (const stream of [dropsOld, refusesNew]) {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
    await nc.close();
  });

  it('every platform stream has a share and a discard policy; together 2.75 shares', () => {
    expect(ALL_STREAMS.map((stream) => [stream.name, stream.sizeShare, stream.discard])).toEqual([
      ['EVENTS', 1, 'old'],
      ['JOBS', 1, 'new'],
      ['STORAGE_EVENTS', 0.25, 'old'],
      ['PARKED', 0.5, 'old'],
    ]);
    expect(RESERVED_SHARES).toBe(2.75);
  });

  it('sets max_bytes to each stream share and its discard policy, also on an existing unbounded stream', async () => {
    await ensureStreams(jsm, [dropsOld, refusesNew]);
    expect((await jsm.streams.info(dropsOld.name)).config.max_bytes).toBe(-1);
    await ensureStreams(jsm, [dropsOld, refusesNew], { maxBytes: 2 * MIB });
    const [old, fresh] = [await jsm.streams.info(dropsOld.name), await jsm.streams.info(refusesNew.name)];
    expect([old.config.max_bytes, old.config.discard, fresh.config.max_bytes, fresh.config.discard]).toEqual([MIB, DiscardPolicy.Old, MIB, DiscardPolicy.New]);
  });

  it('a full stream drops its oldest messages, or refuses new ones', async () => {
    const js = nc.jetstream();
    const body = new Uint8Array(100 * 1024);
    for (let index = 0; index < 15; index += 1) {
      await js.publish(`${prefix}.old.m`, body);
    }
    const old = await jsm.streams.info(dropsOld.name);
    expect(old.state.bytes).toBeLessThanOrEqual(MIB);
    expect(old.state.first_seq).toBeGreaterThan(1);
    let refused: unknown = null;
    for (let index = 0; index < 15 && refused === null; index += 1) {
      await js.publish(`${prefix}.new.m`, body).catch((error: unknown) => {
        refused = error;
      });
    }
    // JetStream's "maximum bytes exceeded" (10077); the outbox relay keeps the message and repeats it.
    expect((refused as NatsError | null)?.api_error?.err_code).toBe(10077);
    const fresh = await jsm.streams.info(refusesNew.name);
    expect([fresh.state.first_seq, fresh.state.bytes <= MIB]).toEqual([1, true]);
  });

  it('a bound the file store cannot reserve fails with the setting named', async () => {
    const huge: StreamDefinition = { ...dropsOld, name: `${prefix}_HUGE`.toUpperCase(), subjects: [`${prefix}.huge.>`], sizeShare: 1 };
    await expect(ensureStreams(jsm, [huge], { maxBytes: 1024 ** 5 })).rejects.toThrow(/NATS_STREAM_MAX_MIB/);
  });
});

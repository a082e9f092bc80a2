// Real PostgreSQL (issue 32): a commit of outbox rows wakes the relay of the writing process once, through its
// in-process commit signal; the NOTIFY the same commit sends is skipped by that process's listener, and still
// wakes the relays of other processes.
import { SystemClock } from '@cp/clock';
import { defineEvent } from '@cp/contracts';
import { asTransaction, migrateServiceDatabase, serviceDataSourceOptions } from '@cp/database';
import { testInfra, uniqueName, waitUntil } from '@cp/testing';
import { IsString } from 'class-validator';
import { JetStreamClient } from 'nats';
import { DataSource } from 'typeorm';
import { MESSAGING_ENTITIES } from './messaging-entities';
import { MESSAGING_MIGRATIONS } from './messaging-migrations';
import { OutboxNotificationListener } from './outbox-notification.listener';
import { OutboxRelay } from './outbox-relay';
import { OutboxCommitSignal, OutboxWriter } from './outbox-writer';

class NotePayload {
  @IsString()
  note!: string;
}

describe('OutboxNotificationListener: one wake per commit (real PostgreSQL)', () => {
  const schema = uniqueName('it_outbox_listen');
  const event = defineEvent(`${uniqueName('itl')}.note.written`, NotePayload);
  let processA: DataSource;
  let processB: DataSource;
  let signal: OutboxCommitSignal;
  let listenerA: OutboxNotificationListener | undefined;
  let listenerB: OutboxNotificationListener | undefined;

  const open = (name: string): Promise<DataSource> =>
    new DataSource(serviceDataSourceOptions({ url: testInfra.databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: MESSAGING_MIGRATIONS, applicationName: name })).initialize();
  // Only the listener is used here: nothing is published.
  const relayOf = (dataSource: DataSource): OutboxRelay =>
    new OutboxRelay(dataSource, () => ({}) as JetStreamClient, { pollIntervalMs: 600_000 });

  beforeAll(async () => {
    processA = await open(`${schema}-a`);
    await migrateServiceDatabase(processA, schema);
    processB = await open(`${schema}-b`);
    signal = OutboxCommitSignal.on(processA);
  });

  afterAll(async () => {
    await listenerA?.close();
    await listenerB?.close();
    await processB.destroy();
    await processA.query(`DROP SCHEMA "${schema}" CASCADE`);
    await processA.destroy();
  });

  it("skips the NOTIFY of its own process's commits, which the commit signal announced, and wakes for another's", async () => {
    let wakesA = 0;
    let wakesB = 0;
    let signals = 0;
    const unsubscribe = signal.subscribe(() => {
      signals += 1;
    });
    const asked = jest.spyOn(signal, 'sentByThisProcess');
    // Process A follows its own commit signal; process B has none and learns everything through NOTIFY.
    listenerA = await relayOf(processA).listenForCommits(() => {
      wakesA += 1;
    }, signal);
    listenerB = await relayOf(processB).listenForCommits(() => {
      wakesB += 1;
    });
    // Each listener wakes once on connecting (rows may have committed before it listened).
    expect([wakesA, wakesB]).toEqual([1, 1]);

    try {
      const writerA = new OutboxWriter(new SystemClock(), signal);
      // A transaction, and a statement outside any transaction (as order creation writes): both pool paths.
      await processA.transaction((manager) => writerA.add(asTransaction(manager), event, { note: 'in a transaction' }));
      await writerA.add(asTransaction(processA.manager), event, { note: 'one statement' });
      expect(signals).toBe(2);
      // Then a commit of process B. PostgreSQL delivers the notifications to a listener in commit order; A's
      // listener asks its signal about each sender, so after three questions it has seen all three notifications.
      await new OutboxWriter(new SystemClock()).add(asTransaction(processB.manager), event, { note: 'from b' });
      await waitUntil(() => Promise.resolve(asked.mock.calls.length === 3), 20_000);
      expect(asked.mock.results.map((result) => result.value as boolean)).toEqual([true, true, false]);
      // One wake at the connection, one for B's commit; A's own two commits woke A through the signal only.
      expect(wakesA).toBe(2);
      // B, another process, was woken by every commit: A's two and its own.
      await waitUntil(() => Promise.resolve(wakesB === 4), 20_000);
      expect(wakesB).toBe(4);
    } finally {
      unsubscribe();
      asked.mockRestore();
    }
  });

  it('knows the backends of its pool while they are open, and forgets one the pool has closed', async () => {
    const processC = await open(`${schema}-c`);
    const signalC = OutboxCommitSignal.on(processC);
    const pidOf = async (dataSource: DataSource): Promise<number> => (await dataSource.query<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid'))[0].pid;
    const pidC = await pidOf(processC);
    const pidB = await pidOf(processB);
    expect(signalC.sentByThisProcess(pidC)).toBe(true);
    expect(signalC.sentByThisProcess(pidB)).toBe(false);
    await processC.destroy();
    // pg's pool reports a closed connection once the socket has ended, just after `destroy` returns.
    await waitUntil(() => Promise.resolve(!signalC.sentByThisProcess(pidC)), 5_000);
    expect(signalC.sentByThisProcess(pidC)).toBe(false);
  });
});

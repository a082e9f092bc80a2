// Test fixture: commits one outbox event and is killed (SIGKILL) before any relay could publish it.
import 'reflect-metadata';
import { SystemClock } from '@cp/clock';
import { defineEvent } from '@cp/contracts';
import { serviceDataSourceOptions, asTransaction } from '@cp/database';
import { DataSource } from 'typeorm';

/** Any payload: the consumer side of the test declares its own class. */
class AnyNote {
  note!: string;
}
import { MESSAGING_ENTITIES } from '../messaging-entities';
import { OutboxWriter } from '../outbox-writer';

async function main(): Promise<void> {
  const [databaseUrl, schema, subject, eventId] = process.argv.slice(2);
  const dataSource = new DataSource(
    serviceDataSourceOptions({ url: databaseUrl, schema, entities: MESSAGING_ENTITIES, migrations: [], applicationName: 'fixture' }),
  );
  await dataSource.initialize();
  const writer = new OutboxWriter(new SystemClock());
  await dataSource.transaction((manager) => writer.add(asTransaction(manager), defineEvent(subject, AnyNote), { note: 'committed before the crash' }, eventId));
  process.stdout.write('committed\n');
  process.kill(process.pid, 'SIGKILL');
}

void main();

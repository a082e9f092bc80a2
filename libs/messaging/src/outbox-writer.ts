import { Clock } from '@cp/clock';
import { EventEnvelope, MessageContract, OutboxMessage } from '@cp/contracts';
import { tableSql, Transaction, TransactionalRepository, WriteBatch } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { OutboxEventEntity } from './outbox-event.entity';

/**
 * Records an event or job inside the caller's transaction, so it exists if and only if the state change
 * committed. The relay publishes it afterwards with `Nats-Msg-Id` = `eventId`. Only declared contracts
 * (`Events.*`, `Jobs.*` of `@cp/contracts`) are accepted, so the payload type is checked.
 */
@Injectable()
export class OutboxWriter extends TransactionalRepository {
  constructor(private readonly clock: Clock) {
    super();
  }

  async add<TData extends object>(
    tx: Transaction,
    contract: MessageContract<TData>,
    data: TData,
    eventId: string = randomUUID(),
  ): Promise<EventEnvelope<TData>> {
    const envelope: EventEnvelope<TData> = { eventId, subject: contract.subject, occurredAt: this.clock.now().toISOString(), data };
    const batch = new WriteBatch();
    this.writeEnvelopes(batch, this.db(tx), [envelope]);
    await batch.execute(this.db(tx));
    return envelope;
  }

  /** Records messages made by a domain transition, in order, in one statement. */
  async addAll(tx: Transaction, messages: readonly OutboxMessage[]): Promise<void> {
    const batch = new WriteBatch();
    this.addAllTo(batch, tx, messages);
    await batch.execute(this.db(tx));
  }

  /**
   * Adds the insert of `messages` (in order: `seq` follows the array) to a statement of several writes; the
   * envelopes are made now, as `add` makes them.
   */
  addAllTo(batch: WriteBatch, tx: Transaction, messages: readonly OutboxMessage[]): void {
    if (messages.length === 0) {
      return;
    }
    const occurredAt = this.clock.now().toISOString();
    this.writeEnvelopes(
      batch,
      this.db(tx),
      messages.map((item) => ({ eventId: randomUUID(), subject: item.contract.subject, occurredAt, data: item.payload })),
    );
  }

  /** The one insert of outbox rows; an event id already recorded is skipped. */
  private writeEnvelopes(batch: WriteBatch, manager: EntityManager, envelopes: ReadonlyArray<EventEnvelope<object>>): void {
    const rows = envelopes.map((envelope) => ({ id: envelope.eventId, subject: envelope.subject, envelope }));
    // WITH ORDINALITY keeps the array's order for the sequence (the relay publishes by seq).
    batch.write(
      `INSERT INTO ${tableSql(manager, OutboxEventEntity)} (id, subject, envelope)
       SELECT r.id, r.subject, r.envelope
         FROM ROWS FROM (jsonb_to_recordset(${batch.param(JSON.stringify(rows), 'jsonb')}) AS (id uuid, subject text, envelope jsonb)) WITH ORDINALITY AS r(id, subject, envelope, n)
       ORDER BY r.n ON CONFLICT DO NOTHING`,
    );
  }
}

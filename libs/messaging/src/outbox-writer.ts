import { Clock } from '@cp/clock';
import { EventEnvelope, MessageContract, OutboxMessage } from '@cp/contracts';
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
export class OutboxWriter {
  constructor(private readonly clock: Clock) {}

  async add<TData extends object>(
    manager: EntityManager,
    contract: MessageContract<TData>,
    data: TData,
    eventId: string = randomUUID(),
  ): Promise<EventEnvelope<TData>> {
    const subject = contract.subject;
    const envelope: EventEnvelope<TData> = { eventId, subject, occurredAt: this.clock.now().toISOString(), data };
    await manager
      .createQueryBuilder()
      .insert()
      .into(OutboxEventEntity)
      .values({ id: eventId, subject, envelope })
      .orIgnore()
      .execute();
    return envelope;
  }

  /** Records messages made by a domain transition, in order. */
  async addAll(manager: EntityManager, messages: readonly OutboxMessage[]): Promise<void> {
    for (const item of messages) {
      await this.add(manager, item.contract, item.payload);
    }
  }
}

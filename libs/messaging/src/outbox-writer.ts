import { Clock } from '@cp/clock';
import { EventEnvelope } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { OutboxEventEntity } from './outbox-event.entity';

/**
 * Records an event inside the caller's transaction, so the event exists if and only if the state change
 * committed. The relay publishes it afterwards with `Nats-Msg-Id` = `eventId`.
 */
@Injectable()
export class OutboxWriter {
  constructor(private readonly clock: Clock) {}

  async add<TData extends object>(
    manager: EntityManager,
    subject: string,
    data: TData,
    eventId: string = randomUUID(),
  ): Promise<EventEnvelope<TData>> {
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
}

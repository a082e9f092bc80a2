import { Clock } from '@cp/clock';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { StoredEvent } from './webhook-payload';

/** An order event becomes one PENDING delivery per active endpoint of the account, due at once. */
@Injectable()
export class EnqueueOrderEventUseCase {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly clock: Clock,
  ) {}

  async execute(manager: EntityManager, accountId: string, sourceEventId: string, event: StoredEvent): Promise<number> {
    const endpoints = await this.endpoints.listActiveForAccount(manager, accountId);
    return this.deliveries.enqueue(
      manager,
      accountId,
      sourceEventId,
      event,
      endpoints.map((endpoint) => endpoint.id),
      this.clock.now(),
    );
  }
}

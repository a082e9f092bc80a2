import { Clock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
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

  async execute(tx: Transaction, accountId: string, sourceEventId: string, event: StoredEvent): Promise<number> {
    const endpoints = await this.endpoints.listActiveForAccount(tx, accountId);
    return this.deliveries.enqueue(
      tx,
      accountId,
      sourceEventId,
      event,
      endpoints.map((endpoint) => endpoint.id),
      this.clock.now(),
    );
  }
}

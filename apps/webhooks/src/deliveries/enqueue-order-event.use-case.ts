import { Clock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery } from './webhook-delivery';
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
    const webhookIds = endpoints.map((endpoint) => endpoint.id);
    return this.deliveries.insertNew(tx, WebhookDelivery.enqueue(accountId, sourceEventId, event, webhookIds, this.clock.now()));
  }
}

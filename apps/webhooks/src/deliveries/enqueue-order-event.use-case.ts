import { Clock } from '@cp/clock';
import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { webhookReceives } from '../endpoints/webhook-mode';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery } from './webhook-delivery';
import { isTestEvent, StoredEvent } from './webhook-payload';

/**
 * An order event becomes one PENDING delivery, due at once, per active endpoint of the account that receives it:
 * every live endpoint, and the test endpoints only for a test order's event. None for an order, or an account, an
 * operator erased: the event can be handled after the erasure (another consumer), and would store its payload again.
 */
@Injectable()
export class EnqueueOrderEventUseCase {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly erased: ErasedScopesRepository,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, accountId: string, sourceEventId: string, event: StoredEvent): Promise<number> {
    if (await this.erased.isErased(tx, accountId, event.orderId)) {
      return 0;
    }
    const testEvent = isTestEvent(event);
    const endpoints = await this.endpoints.listActiveForAccount(tx, accountId);
    const webhookIds = endpoints.filter((endpoint) => webhookReceives(endpoint.mode, testEvent)).map((endpoint) => endpoint.id);
    return this.deliveries.insertNew(tx, WebhookDelivery.enqueue(accountId, sourceEventId, event, webhookIds, this.clock.now()));
  }
}

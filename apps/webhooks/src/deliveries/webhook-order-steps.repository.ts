import { OrderTimelineStep } from '@cp/contracts';
import { OrderStepsSource } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/**
 * The order timeline's webhook steps: each delivery of an event about the order with its attempts so far (the
 * delivery keeps its last attempt's status or error, not every attempt's).
 */
@Injectable()
export class WebhookOrderStepsRepository implements OrderStepsSource {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async stepsOf(orderId: string): Promise<OrderTimelineStep[]> {
    const deliveries = await this.dataSource.getRepository(WebhookDeliveryEntity).find({ where: { orderId }, order: { createdAt: 'ASC' } });
    return deliveries.map((delivery) => {
      const last = delivery.lastStatusCode !== null ? `last answer ${delivery.lastStatusCode}` : delivery.lastError ? `last error: ${delivery.lastError}` : 'not attempted yet';
      return {
        at: delivery.createdAt.toISOString(),
        service: 'webhooks',
        step: `webhook ${delivery.eventType} to endpoint ${delivery.webhookId}: ${delivery.status} after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
        detail: `${last}${delivery.lastAttemptAt ? ` at ${delivery.lastAttemptAt.toISOString()}` : ''}; event ${delivery.eventId}`,
      };
    });
  }
}

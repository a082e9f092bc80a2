import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, WebhookRetryFailedView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { DeliveryScope } from '../endpoints/webhook-mode';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { parseRetryRange } from './retry-range';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery } from './webhook-delivery';

/**
 * Spec 4.16 "retry failed events": every FAILED event of the webhook created in the range (at most 7 days)
 * is queued again with a fresh retry schedule; the dispatcher delivers them like new events. Only those within the
 * caller's scope: a test key's range never queues a live event.
 */
@Injectable()
export class RetryFailedRangeUseCase {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
  ) {}

  async execute(webhookId: number, fromDate: string, toDate: string, scope: DeliveryScope): Promise<WebhookRetryFailedView> {
    const range = parseRetryRange(fromDate, toDate);
    if (!range) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, 'invalid or wider than 7 days');
    }
    const retried = await this.deliveries.requeueFailed(webhookId, range.from, range.to, WebhookDelivery.newRound(this.clock.now()), scope);
    if (retried > 0) {
      this.dispatcher.wake();
    }
    return { fromDate: range.from.toISOString(), toDate: range.to.toISOString(), retried };
  }
}

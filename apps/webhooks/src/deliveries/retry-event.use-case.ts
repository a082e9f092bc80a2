import { Clock } from '@cp/clock';
import { DomainException, ErrorCode, WebhookEventRetryView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { DeliveryScope } from '../endpoints/webhook-mode';
import { DeliverEventUseCase } from './deliver-event.use-case';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery } from './webhook-delivery';

const BUSY_WAIT_MS = 6000;
const BUSY_POLL_MS = 200;

/** What a manual retry for an inactive webhook answers (docs/webhooks.md: an inactive webhook receives nothing). */
export const INACTIVE_RETRY_ERROR = 'the webhook is inactive: the event is sent when it is activated again';

/**
 * Spec 4.16 "retry one event": one attempt right now, whatever the event's status; the answer is its outcome.
 * For an inactive webhook nothing is sent: the event is queued again (a new round) and goes out, like its other
 * pending deliveries, once the webhook is activated. A delivery outside the caller's scope (a live event for a test
 * key) is not found, and so never sent.
 */
@Injectable()
export class RetryEventUseCase {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly deliver: DeliverEventUseCase,
    private readonly clock: Clock,
  ) {}

  async execute(webhookId: number, deliveryId: string, scope: DeliveryScope, webhookActive: boolean): Promise<WebhookEventRetryView> {
    if (!webhookActive) {
      const { eventId } = await this.whenFree(() => this.deliveries.requeueOne(webhookId, deliveryId, WebhookDelivery.newRound(this.clock.now()), scope), webhookId, deliveryId);
      return { event_id: eventId, success: false, status_code: 0, status: 'PENDING', error: INACTIVE_RETRY_ERROR };
    }
    const claim = await this.whenFree(() => this.deliveries.claimOne(webhookId, deliveryId, scope), webhookId, deliveryId);
    const result = await this.deliver.execute(claim, 'manual');
    return {
      event_id: claim.eventId,
      success: result.outcome.success,
      // 0 when no HTTP response came back (timeout, refused, blocked target).
      status_code: result.outcome.statusCode ?? 0,
      status: result.status,
      error: result.outcome.error,
    };
  }

  /** An automatic attempt may be in flight (it ends within the 5-second timeout): wait for it. */
  private async whenFree<T>(attempt: () => Promise<T | null | 'busy'>, webhookId: number, deliveryId: string): Promise<T> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      const claim = await attempt();
      if (claim === null) {
        throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `delivery ${deliveryId} of webhook ${webhookId} not found`);
      }
      if (claim !== 'busy') {
        return claim;
      }
      if (Date.now() > deadline) {
        throw new DomainException(ErrorCode.WATERMARK_V2_UNAVAILABLE, `delivery ${deliveryId} is locked by an attempt in flight`);
      }
      await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
    }
  }
}

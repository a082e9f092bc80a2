import { DomainException, ErrorCode, WebhookEventRetryView } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { DeliveryScope } from '../endpoints/webhook-mode';
import { DeliverEventUseCase } from './deliver-event.use-case';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';

const BUSY_WAIT_MS = 6000;
const BUSY_POLL_MS = 200;

/**
 * Spec 4.16 "retry one event": one attempt right now, whatever the event's status; the answer is its outcome.
 * A delivery outside the caller's scope (a live event for a test key) is not found, and so never sent.
 */
@Injectable()
export class RetryEventUseCase {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly deliver: DeliverEventUseCase,
  ) {}

  async execute(webhookId: number, deliveryId: string, scope: DeliveryScope): Promise<WebhookEventRetryView> {
    const claim = await this.claim(webhookId, deliveryId, scope);
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
  private async claim(webhookId: number, deliveryId: string, scope: DeliveryScope) {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      const claim = await this.deliveries.claimOne(webhookId, deliveryId, scope);
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

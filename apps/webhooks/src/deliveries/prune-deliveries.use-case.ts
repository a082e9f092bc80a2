import { Clock } from '@cp/clock';
import { Inject, Injectable } from '@nestjs/common';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';
import { deliveryMetrics } from './delivery-metrics';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { FINAL_DELIVERY_STATUSES } from './webhook-delivery';

/**
 * The delivery log does not grow without end: a delivery that ended (SUCCESS or FAILED) longer ago than the
 * retention period is deleted. The period is longer than the 7 days a range retry may span (spec 6.3), so every
 * failed event stays resendable for at least that long. PENDING deliveries are never pruned, however old.
 */
@Injectable()
export class PruneDeliveriesUseCase {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly clock: Clock,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: Pick<WebhooksSettings, 'deliveryRetention'>,
  ) {}

  /** Deletes one batch of ended deliveries past the retention period; returns how many. */
  async execute(): Promise<number> {
    const { keepMs, batchSize } = this.settings.deliveryRetention;
    const pruned = await this.deliveries.pruneEnded(FINAL_DELIVERY_STATUSES, new Date(this.clock.nowMs() - keepMs), batchSize);
    deliveryMetrics.pruned.inc(pruned);
    return pruned;
  }
}

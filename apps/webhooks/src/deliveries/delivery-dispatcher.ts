import { Clock } from '@cp/clock';
import { PeriodicTask } from '@cp/runtime';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';
import { DeliverEventUseCase } from './deliver-event.use-case';
import { deliveryMetrics } from './delivery-metrics';
import { ClaimedDelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository';

const GAUGE_REFRESH_MS = 5000;

/** Counts an attempt in (+1) or out (-1) of a share; a key with none left goes, so the maps hold only what runs. */
function addBusy<K>(busy: Map<K, number>, key: K, change: 1 | -1): void {
  const count = (busy.get(key) ?? 0) + change;
  if (count <= 0) {
    busy.delete(key);
  } else {
    busy.set(key, count);
  }
}

/**
 * The scheduler loop: every tick it claims due deliveries from PostgreSQL (the retry queue survives any
 * restart) and runs each attempt concurrently, bounded overall, per endpoint and per account, so neither a slow
 * or failing receiver nor an account with many webhooks holds up the others.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly busyByEndpoint = new Map<number, number>();
  private readonly busyByAccount = new Map<string, number>();
  private readonly loop: PeriodicTask;
  private gaugeRefreshedAt = 0;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly deliver: DeliverEventUseCase,
    private readonly clock: Clock,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: WebhooksSettings,
  ) {
    this.loop = new PeriodicTask('webhook dispatcher', settings.dispatchIntervalMs, () => this.tick(), { runAtStart: true });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /** Look for due work now (a new event arrived, an attempt finished). */
  wake(): void {
    this.loop.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    // Attempts in flight finish (at most the 5-second timeout); anything else stays due in the table.
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async tick(): Promise<void> {
    await this.claimAndStart();
    await this.refreshGauge();
  }

  private async claimAndStart(): Promise<void> {
    const free = this.settings.maxConcurrency - this.inFlight.size;
    if (free <= 0) {
      return;
    }
    const claims = await this.deliveries.claimDue(
      this.clock.now(),
      { byEndpoint: this.busyByEndpoint, byAccount: this.busyByAccount },
      { perEndpoint: this.settings.maxConcurrencyPerEndpoint, perAccount: this.settings.maxConcurrencyPerAccount },
      free,
    );
    for (const claim of claims) {
      this.start(claim);
    }
  }

  private start(claim: ClaimedDelivery): void {
    addBusy(this.busyByEndpoint, claim.webhookId, 1);
    addBusy(this.busyByAccount, claim.accountId, 1);
    deliveryMetrics.inFlight.inc();
    const task = this.deliver
      .execute(claim, 'automatic')
      .then(() => undefined)
      .catch((error: unknown) => {
        // The lease runs out and the delivery is claimed again.
        this.logger.error({ err: error, deliveryId: claim.id }, 'delivery attempt crashed');
      })
      .finally(() => {
        this.inFlight.delete(claim.id);
        addBusy(this.busyByEndpoint, claim.webhookId, -1);
        addBusy(this.busyByAccount, claim.accountId, -1);
        deliveryMetrics.inFlight.dec();
        this.wake();
      });
    this.inFlight.set(claim.id, task);
  }

  private async refreshGauge(): Promise<void> {
    const now = Date.now();
    if (now - this.gaugeRefreshedAt < GAUGE_REFRESH_MS) {
      return;
    }
    this.gaugeRefreshedAt = now;
    const oldest = await this.deliveries.oldestPendingCreatedAt();
    deliveryMetrics.oldestPendingAge.set(oldest ? Math.max(0, (this.clock.nowMs() - oldest.getTime()) / 1000) : 0);
  }
}

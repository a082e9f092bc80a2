import { WebhookDeliveryStatus } from '@cp/contracts';
import { initialDeliveryJustFailed, nextRetryDelayMs } from './retry-schedule';
import type { DeliveryDownloadRef, DeliveryLink } from './webhook-delivery.entity';
import type { StoredEvent } from './webhook-payload';

/**
 * The rules of a webhook delivery (spec 6.3, 4.16) in plain TypeScript: what a new delivery is, what an attempt
 * changes and what it leads to, what a new round resets. `WebhookDeliveriesRepository` only writes what these
 * return; the use cases act on the events (metrics, telling the owner).
 *
 *   PENDING ─attempt ok→ SUCCESS
 *      └─ automatic attempt failed → PENDING again after the schedule's delay, FAILED when none is left
 *   manual attempt (any status): ok → SUCCESS; failed → a PENDING delivery keeps its schedule, any other is FAILED
 *   FAILED ─retry failed range→ PENDING, round n+1, due now
 */

export type AttemptTrigger = 'automatic' | 'manual';

/**
 * The statuses a delivery rests in: nothing sends it again unless someone resends it. Only these are pruned once
 * the retention period has passed since they ended (`PruneDeliveriesUseCase`); a PENDING delivery never is.
 */
export const FINAL_DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['SUCCESS', 'FAILED'];

/** What a claimed delivery's rules read. */
export interface DeliveryState {
  status: WebhookDeliveryStatus;
  /** Automatic attempts of the current round (the retry schedule's position). */
  roundAttempts: number;
  /** 0 for the first round; each "retry failed range" starts another. */
  round: number;
}

/** A delivery to insert: one per active endpoint of the account. */
export interface NewDelivery {
  webhookId: number;
  accountId: string;
  sourceEventId: string;
  eventId: string;
  eventType: StoredEvent['eventType'];
  orderId: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  download: DeliveryDownloadRef | null;
  links: DeliveryLink[] | null;
  status: 'PENDING';
  nextAttemptAt: Date;
  createdAt: Date;
}

/** What one attempt changes on its delivery. */
export interface AttemptRecord {
  status: WebhookDeliveryStatus;
  /** `keep`: a manual attempt leaves the automatic schedule as it is. */
  nextAttemptAt: Date | null | 'keep';
  statusCode: number | null;
  error: string | null;
  at: Date;
  /** Set when the delivery reached SUCCESS or FAILED; null while PENDING. */
  completedAt: Date | null;
  /** Automatic attempts advance the retry schedule; manual ones do not. */
  countsForRound: boolean;
}

/** What a new round changes on a FAILED delivery (besides `round + 1` and a fresh schedule). */
export interface NewRound {
  status: 'PENDING';
  nextAttemptAt: Date;
  completedAt: null;
}

/** What an attempt leads to besides its record. */
export type DeliveryEvent =
  /** The delivery reached SUCCESS or FAILED from another status (delivery metrics). */
  | { kind: 'finished'; status: 'SUCCESS' | 'FAILED' }
  /** The last immediate retry of a first round failed: the owner is told (spec 6.3). */
  | { kind: 'initialDeliveryFailed' };

export interface SentAttempt {
  success: boolean;
  statusCode: number | null;
  error: string | null;
}

export class WebhookDelivery {
  constructor(private readonly state: Readonly<DeliveryState>) {}

  /** An order event becomes one PENDING delivery per endpoint, due at once. */
  static enqueue(accountId: string, sourceEventId: string, event: StoredEvent, webhookIds: readonly number[], at: Date): NewDelivery[] {
    return webhookIds.map((webhookId) => ({
      webhookId,
      accountId,
      sourceEventId,
      eventId: event.eventId,
      eventType: event.eventType,
      orderId: event.orderId,
      occurredAt: new Date(event.occurredAt),
      data: event.data,
      download: event.download,
      links: event.links,
      status: 'PENDING',
      nextAttemptAt: at,
      createdAt: at,
    }));
  }

  /** "Retry failed events": a FAILED delivery starts a new automatic round, due now. */
  static newRound(now: Date): NewRound {
    return { status: 'PENDING', nextAttemptAt: now, completedAt: null };
  }

  /** The record of an attempt that ended at `at`, and what it leads to. */
  attempt(trigger: AttemptTrigger, sent: SentAttempt, at: Date): { record: AttemptRecord; events: DeliveryEvent[] } {
    const { status, nextAttemptAt } = this.next(trigger, sent, at);
    const record: AttemptRecord = {
      status,
      nextAttemptAt,
      statusCode: sent.statusCode,
      error: sent.error,
      at,
      completedAt: status === 'PENDING' ? null : at,
      countsForRound: trigger === 'automatic',
    };
    const events: DeliveryEvent[] = [];
    if (status !== 'PENDING' && status !== this.state.status) {
      events.push({ kind: 'finished', status });
    }
    if (trigger === 'automatic' && !sent.success && this.state.round === 0 && initialDeliveryJustFailed(this.state.roundAttempts + 1)) {
      events.push({ kind: 'initialDeliveryFailed' });
    }
    return { record, events };
  }

  private next(trigger: AttemptTrigger, sent: SentAttempt, at: Date): { status: WebhookDeliveryStatus; nextAttemptAt: Date | null | 'keep' } {
    if (sent.success) {
      return { status: 'SUCCESS', nextAttemptAt: null };
    }
    if (trigger === 'manual') {
      // A failed manual attempt leaves an automatic schedule in place; otherwise the event is FAILED.
      return this.state.status === 'PENDING' ? { status: 'PENDING', nextAttemptAt: 'keep' } : { status: 'FAILED', nextAttemptAt: null };
    }
    const delay = nextRetryDelayMs(this.state.roundAttempts + 1);
    return delay === null ? { status: 'FAILED', nextAttemptAt: null } : { status: 'PENDING', nextAttemptAt: new Date(at.getTime() + delay) };
  }
}

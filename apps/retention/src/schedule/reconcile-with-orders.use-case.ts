import { Clock } from '@cp/clock';
import { Transaction, TransactionRepository } from '@cp/database';
import { Logger } from '@nestjs/common';
import { RetentionConfig } from '../retention.config';
import { CursorLease, LeasedCursorRepository } from './leased-cursor.repository';

/** What one page did: orders read, rows changed, and whether the next page may have more. */
export interface ReconciledPage {
  read: number;
  reconciled: number;
  more: boolean;
}

const NOTHING: ReconciledPage = { read: 0, reconciled: 0, more: false };

/** What a walk reports: its counters (read, reconciled) and the texts of its warnings. */
export interface WalkReport {
  metrics: { read: { inc(value: number): void }; reconciled: { inc(value: number): void } };
  /** A page changed rows: the events that should have done it were missed. */
  reconciled: string;
  leaseLost: string;
  notReleased: string;
}

/**
 * One page of a walk of orders, from their owner, after a leased cursor by (time, `orderId`): the skeleton the
 * reconciliations with orders share (`ReconcileSchedulesUseCase`, `ReconcileFailedOrdersUseCase`); a walk supplies the
 * page's query, its effect, the cursor of an order and what it reports.
 *
 * Replicas: a page is read under a lease on the cursor's row (one replica at a time; a crashed one's lease runs
 * out), the orders call runs outside any transaction (it must not hold a connection or row lock while orders
 * answers), and the page's effect and the cursor commit together, the cursor only forward and only under the lease:
 * a page repeated after a crash or on another replica changes nothing twice.
 */
export abstract class ReconcileWithOrdersUseCase<TItem, TCursor extends { orderId: string }> {
  /** The subclass's name, as each walk's own logger was. */
  private readonly logger = new Logger(this.constructor.name);

  protected constructor(
    private readonly transactions: TransactionRepository,
    protected readonly config: Pick<RetentionConfig, 'retention' | 'reconcile'>,
    private readonly cursors: LeasedCursorRepository<TCursor>,
    private readonly clock: Clock,
    private readonly report: WalkReport,
  ) {}

  /** Orders' page after `after` (null: from the oldest), `pageSize` at most, bounded by the walk's grace before `now`. */
  protected abstract readPage(after: TCursor | null, now: Date, pageSize: number): Promise<TItem[]>;

  /** The page's effect, in the transaction that advances the cursor: the ids of the orders whose rows it changed. */
  protected abstract applyPage(tx: Transaction, page: TItem[]): Promise<string[]>;

  /** Where the cursor goes once `item` is read. */
  protected abstract cursorOf(item: TItem): TCursor;

  /** The time the cursor passed with `item`, for the log. */
  protected abstract timeOf(item: TItem): string;

  /** Reads the next page after the cursor and applies it; `more`: a full page, the next may have more. */
  async execute(): Promise<ReconciledPage> {
    const { pageSize } = this.config.reconcile;
    const now = this.clock.now();
    const lease = await this.transactions.run((tx) => this.cursors.claim(tx, now, new Date(now.getTime() + this.config.retention.leaseMs)));
    if (!lease) {
      // Another replica is reading a page; its pass covers this one's.
      return NOTHING;
    }
    let page: TItem[];
    try {
      page = await this.readPage(lease.after, now, pageSize);
    } catch (error) {
      await this.releaseAfter(lease, error);
      throw error;
    }
    if (page.length === 0) {
      await this.transactions.run((tx) => this.cursors.release(tx, lease));
      return NOTHING;
    }
    const last = page[page.length - 1];
    let outcome: { changed: string[]; advanced: boolean };
    try {
      outcome = await this.transactions.run(async (tx) => {
        const changed = await this.applyPage(tx, page);
        const advanced = await this.cursors.advance(tx, lease, this.cursorOf(last), changed.length, this.clock.now());
        return { changed, advanced };
      });
    } catch (error) {
      await this.releaseAfter(lease, error);
      throw error;
    }
    this.report.metrics.read.inc(page.length);
    if (outcome.changed.length > 0) {
      this.report.metrics.reconciled.inc(outcome.changed.length);
      this.logger.warn({ reconciled: outcome.changed.length, orderIds: outcome.changed.slice(0, 20), through: this.timeOf(last) }, this.report.reconciled);
    }
    if (!outcome.advanced) {
      // The lease ran out during the page and another replica went on: it walks from where it is.
      this.logger.warn({ leasedUntil: lease.leasedUntil }, this.report.leaseLost);
      return { read: page.length, reconciled: outcome.changed.length, more: false };
    }
    return { read: page.length, reconciled: outcome.changed.length, more: page.length === pageSize };
  }

  /** Gives the lease back after a failed page, so the next pass need not wait for it to run out; keeps the page's error. */
  private async releaseAfter(lease: CursorLease<TCursor>, failure: unknown): Promise<void> {
    try {
      await this.transactions.run((tx) => this.cursors.release(tx, lease));
    } catch (error) {
      this.logger.warn({ err: error, failure }, this.report.notReleased);
    }
  }
}

import { Clock } from '@cp/clock';
import { ErasureScope } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderObjects } from '../sweep/order-objects.service';
import { ErasedPrefixRepository, LeasedErasedPrefix } from './erased-prefix.repository';
import { ParkedMessagesRepository } from './parked-messages.repository';

/** The account, or the order of it, an erased prefix (`{accountId}/`, `{accountId}/{orderId}/`) is of; null for another string. */
export function scopeOfPrefix(prefix: string): ErasureScope | null {
  const [, accountId, orderId] = /^([0-9]+)\/(?:([0-9]+)\/)?$/.exec(prefix) ?? [];
  if (accountId === undefined) return null;
  return orderId === undefined ? { accountId } : { accountId, orderId };
}

/**
 * One batch of the looks at erased prefixes (`ErasedPrefixEntity`): the due ones are claimed under a lease (short
 * statement), emptied outside any transaction, then moved to their last look or forgotten. Each look also discards the
 * parked messages naming the erased account or order: a job in flight at the erasure that gave up after the operator's
 * own discard (`admin … erase`) would otherwise keep its recipients' names in PARKED for its 30 days. A prefix storage
 * would not empty, or whose parked messages could not be looked at, keeps its row and lease: claimed again once the
 * lease runs out. Run by the retention scheduler with the sweep, at start too, so a look cut short by a crash or a
 * restart is done again; repeating one deletes nothing more.
 */
@Injectable()
export class RecheckErasedPrefixesUseCase {
  private readonly logger = new Logger(RecheckErasedPrefixesUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
    private readonly prefixes: ErasedPrefixRepository,
    private readonly objects: OrderObjects,
    private readonly parked: ParkedMessagesRepository,
    private readonly clock: Clock,
  ) {}

  /** Handles one due batch; returns how many prefixes it claimed (0: none is due). */
  async execute(): Promise<number> {
    const { batchSize, leaseMs } = this.config.retention;
    const now = this.clock.now();
    const due = await this.transactions.run((tx) => this.prefixes.claimDue(tx, now, batchSize, new Date(now.getTime() + leaseMs)));
    const emptied: Array<{ claimed: LeasedErasedPrefix; scope: ErasureScope; deleted: number }> = [];
    for (const claimed of due) {
      const { deleted, failed } = await this.objects.purgePrefix(claimed.prefix);
      if (failed.length > 0) {
        this.logger.warn({ failedCount: failed.length, deleted }, 'erased prefix: objects not deleted; looked at again when the lease runs out');
        continue;
      }
      if (deleted > 0) {
        // Ids only: the prefix is `{accountId}/` or `{accountId}/{orderId}/`.
        this.logger.warn({ prefix: claimed.prefix, deleted }, 'erased prefix: objects written after the erasure deleted');
      }
      const scope = scopeOfPrefix(claimed.prefix);
      if (scope === null) {
        // Not written by an erasure (a hand-made row): its parked messages cannot be matched; never forgotten unseen.
        this.logger.warn({ prefix: claimed.prefix }, 'erased prefix: not an account or order prefix; its parked messages not looked at');
        continue;
      }
      emptied.push({ claimed, scope, deleted });
    }
    // One read of PARKED for the whole batch, not one per prefix.
    const parkedDiscarded = await this.discardParked(emptied.map(({ scope }) => scope));
    if (parkedDiscarded === null) {
      return due.length;
    }
    for (const [index, { claimed, deleted }] of emptied.entries()) {
      if (parkedDiscarded[index] > 0) {
        this.logger.warn({ prefix: claimed.prefix, parkedDiscarded: parkedDiscarded[index] }, 'erased prefix: messages parked after the erasure discarded');
      }
      const last = claimed.recheckAt.getTime() >= claimed.finalRecheckAt.getTime();
      await this.transactions.run((tx) => this.prefixes.looked(tx, claimed, deleted, last ? null : claimed.finalRecheckAt));
    }
    return due.length;
  }

  /**
   * Discards the parked messages naming the erased accounts or orders; how many for each, or null when that failed
   * (logged): every prefix of the batch then keeps its look for after the lease.
   */
  private async discardParked(scopes: ErasureScope[]): Promise<number[] | null> {
    if (scopes.length === 0) {
      return [];
    }
    try {
      return await this.parked.discardNaming(scopes);
    } catch (error) {
      this.logger.warn(
        { prefixes: scopes.length, error: error instanceof Error ? error.message : String(error) },
        'erased prefixes: parked messages not looked at; looked at again when the lease runs out',
      );
      return null;
    }
  }
}

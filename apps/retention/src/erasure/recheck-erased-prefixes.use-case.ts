import { Clock } from '@cp/clock';
import { ErasureScope } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderObjects } from '../sweep/order-objects.service';
import { ErasedPrefixRepository } from './erased-prefix.repository';
import { ParkedMessagesRepository } from './parked-messages.repository';

/** The account, or the order of it, an erased prefix (`{accountId}/`, `{accountId}/{orderId}/`) is of. */
export function scopeOfPrefix(prefix: string): ErasureScope {
  const [, accountId, orderId] = /^([0-9]+)\/(?:([0-9]+)\/)?$/.exec(prefix) ?? [];
  if (accountId === undefined) throw new Error(`not an erased prefix: ${prefix}`);
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
      const parkedDiscarded = await this.discardParked(claimed.prefix);
      if (parkedDiscarded === null) {
        continue;
      }
      if (parkedDiscarded > 0) {
        this.logger.warn({ prefix: claimed.prefix, parkedDiscarded }, 'erased prefix: messages parked after the erasure discarded');
      }
      const last = claimed.recheckAt.getTime() >= claimed.finalRecheckAt.getTime();
      await this.transactions.run((tx) => this.prefixes.looked(tx, claimed, deleted, last ? null : claimed.finalRecheckAt));
    }
    return due.length;
  }

  /** Discards the parked messages naming the prefix's account or order; how many, or null when that failed (logged). */
  private async discardParked(prefix: string): Promise<number | null> {
    try {
      return await this.parked.discardNaming(scopeOfPrefix(prefix));
    } catch (error) {
      this.logger.warn({ prefix, error: error instanceof Error ? error.message : String(error) }, 'erased prefix: parked messages not looked at; looked at again when the lease runs out');
      return null;
    }
  }
}

import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderObjects } from '../sweep/order-objects.service';
import { ErasedPrefixRepository } from './erased-prefix.repository';

/**
 * One batch of the looks at erased prefixes (`ErasedPrefixEntity`): the due ones are claimed under a lease (short
 * statement), emptied outside any transaction, then moved to their last look or forgotten. A prefix storage would
 * not empty keeps its row and lease: claimed again once the lease runs out. Run by the retention scheduler with the
 * sweep, at start too, so a look cut short by a crash or a restart is done again; repeating one deletes nothing more.
 */
@Injectable()
export class RecheckErasedPrefixesUseCase {
  private readonly logger = new Logger(RecheckErasedPrefixesUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
    private readonly prefixes: ErasedPrefixRepository,
    private readonly objects: OrderObjects,
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
      const last = claimed.recheckAt.getTime() >= claimed.finalRecheckAt.getTime();
      await this.transactions.run((tx) => this.prefixes.looked(tx, claimed, deleted, last ? null : claimed.finalRecheckAt));
    }
    return due.length;
  }
}

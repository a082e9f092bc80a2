import { Clock } from '@cp/clock';
import { ObjectKeys, Streams } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RETENTION_CONFIG, RetentionConfig } from '../retention.config';
import { OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects } from '../sweep/order-objects.service';
import { ErasedPrefixRepository } from './erased-prefix.repository';

/** Runs work in the caller's transaction (the consumer's, which also records the event in its inbox). */
export type InTransaction = (work: (tx: Transaction) => Promise<void>) => Promise<unknown>;

/** A storage error left objects of the account in place: the event is redelivered and the erasure tried again. */
export class AccountObjectsRemainError extends Error {
  constructor(readonly remaining: number) {
    super(`${remaining} objects of the erased account were not deleted; retried on redelivery`);
  }
}

/** What an operator erased: a whole account, or one order of it (`orderId`). */
export interface ErasedScope {
  accountId: string;
  orderId?: string;
}

/**
 * An erased account (`evt.gateway.account.erasure-requested`) or order (`evt.orders.order.erasure-requested`):
 * every object under its prefix (inputs, outputs, ZIPs, thumbnails, PDF reports, whatever their retention) is
 * deleted, then its expiry schedules, and the prefix is recorded for two later looks (`ErasedPrefixEntity`,
 * `RecheckErasedPrefixesUseCase`): a job of it queued or running at the erasure may still store an object, which
 * nothing else would delete. The first look comes after `RETENTION_FAILED_ORDER_GRACE_HOURS` (longer than a job can
 * still run: deadline × attempts), the last after the JOBS stream's age more (a job that waited for a worker that was
 * down). The objects go first and outside any transaction (no pooled connection held across storage); only when
 * none is left are the schedules deleted and the prefix recorded, so a storage error leaves everything for the
 * redelivery. Repeating it lists an empty prefix and deletes nothing more.
 */
@Injectable()
export class EraseAccountObjectsUseCase {
  private readonly logger = new Logger(EraseAccountObjectsUseCase.name);

  constructor(
    private readonly objects: OrderObjects,
    private readonly expiries: OrderExpiryRepository,
    private readonly prefixes: ErasedPrefixRepository,
    private readonly clock: Clock,
    @Inject(RETENTION_CONFIG) private readonly config: Pick<RetentionConfig, 'retention'>,
  ) {}

  async execute(scope: ErasedScope, inTransaction: InTransaction): Promise<{ objects: number; schedules: number }> {
    const { accountId, orderId } = scope;
    const prefix = orderId === undefined ? ObjectKeys.accountPrefix(accountId) : ObjectKeys.orderPrefix(accountId, orderId);
    const { deleted, failed } = await this.objects.purgePrefix(prefix);
    if (failed.length > 0) {
      this.logger.warn({ accountId, orderId, failedCount: failed.length }, "erasure: objects not deleted; retried on the event's redelivery");
      throw new AccountObjectsRemainError(failed.length);
    }
    const erasedAt = this.clock.now().getTime();
    const recheckAt = new Date(erasedAt + this.config.retention.failedOrderGraceMs);
    const finalRecheckAt = new Date(recheckAt.getTime() + Streams.jobs.maxAgeSeconds * 1000);
    let schedules = 0;
    await inTransaction(async (tx) => {
      schedules = orderId === undefined ? await this.expiries.deleteOfAccount(tx, accountId) : await this.expiries.deleteOfOrder(tx, accountId, orderId);
      await this.prefixes.record(tx, prefix, recheckAt, finalRecheckAt);
    });
    return { objects: deleted, schedules };
  }
}

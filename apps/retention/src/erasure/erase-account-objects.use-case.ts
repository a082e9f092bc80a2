import { Transaction } from '@cp/database';
import { Injectable, Logger } from '@nestjs/common';
import { OrderExpiryRepository } from '../schedule/order-expiry.repository';
import { OrderObjects } from '../sweep/order-objects.service';

/** Runs work in the caller's transaction (the consumer's, which also records the event in its inbox). */
export type InTransaction = (work: (tx: Transaction) => Promise<void>) => Promise<unknown>;

/** A storage error left objects of the account in place: the event is redelivered and the erasure tried again. */
export class AccountObjectsRemainError extends Error {
  constructor(readonly remaining: number) {
    super(`${remaining} objects of the erased account were not deleted; retried on redelivery`);
  }
}

/**
 * An erased account (`evt.gateway.account.erasure-requested`): every object under its prefix (inputs, outputs,
 * ZIPs, thumbnails, PDF reports of every order, whatever their retention) is deleted, then its expiry schedules.
 * The objects go first and outside any transaction (no pooled connection held across storage); only when none is
 * left are the schedules deleted, so a storage error leaves everything for the redelivery. Repeating it lists an
 * empty prefix and deletes nothing more.
 */
@Injectable()
export class EraseAccountObjectsUseCase {
  private readonly logger = new Logger(EraseAccountObjectsUseCase.name);

  constructor(
    private readonly objects: OrderObjects,
    private readonly expiries: OrderExpiryRepository,
  ) {}

  async execute(accountId: string, inTransaction: InTransaction): Promise<{ objects: number; schedules: number }> {
    const { deleted, failed } = await this.objects.purgeAccount(accountId);
    if (failed.length > 0) {
      this.logger.warn({ accountId, failedCount: failed.length }, "account erasure: objects not deleted; retried on the event's redelivery");
      throw new AccountObjectsRemainError(failed.length);
    }
    let schedules = 0;
    await inTransaction(async (tx) => {
      schedules = await this.expiries.deleteOfAccount(tx, accountId);
    });
    return { objects: deleted, schedules };
  }
}

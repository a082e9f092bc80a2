import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedOrderRows } from './account-erasure.repository';

/**
 * An erased account (`evt.gateway.account.erasure-requested`): its order records (order names, file names,
 * watermark texts, an extract's found text and colluders), their idempotency records and its credits are deleted.
 * Its keys are already refused by the gateway, so no view of them is asked for any more; a worker's result that
 * arrives for one of its orders afterwards finds no order, as for an unknown one. Repeating it deletes nothing more.
 */
@Injectable()
export class EraseAccountOrdersUseCase {
  constructor(private readonly rows: AccountErasureRepository) {}

  execute(tx: Transaction, accountId: string): Promise<ErasedOrderRows> {
    return this.rows.deleteAccount(tx, accountId);
  }
}

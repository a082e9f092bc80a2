import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedOrderRows } from './account-erasure.repository';

/**
 * An erased account (`evt.gateway.account.erasure-requested`): its order records (order names, file names,
 * watermark texts, an extract's found text and colluders), their idempotency records and its credits are deleted.
 * Its keys are already refused by the gateway, so no view of them is asked for any more; a worker's result that
 * arrives for one of its orders afterwards finds no order, as for an unknown one. Repeating it deletes nothing more.
 * The erasure is recorded first (`erased_scope`): an `account created` or `credits granted` event of the account
 * handled after it would otherwise open its ledger again (their consumers run apart from this one), and a test order
 * sent with a key the gateway authenticated just before the erasure would otherwise be created.
 */
@Injectable()
export class EraseAccountOrdersUseCase {
  constructor(
    private readonly rows: AccountErasureRepository,
    private readonly erased: ErasedScopesRepository,
  ) {}

  async execute(tx: Transaction, accountId: string): Promise<ErasedOrderRows> {
    await this.erased.markErased(tx, { accountId });
    return this.rows.deleteAccount(tx, accountId);
  }
}

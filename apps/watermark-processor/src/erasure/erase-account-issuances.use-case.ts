import { ErasureScope } from '@cp/contracts';
import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedIssuanceRows } from './account-erasure.repository';

/**
 * An erased account (`evt.gateway.account.erasure-requested`), or one erased order of it
 * (`evt.orders.order.erasure-requested`, only that order's rows): its issuances (the registry of marks: recipient
 * texts, input keys with file names) are deleted. The account's leaks can no longer be traced, which is what its
 * erasure asks: nobody is left to trace them for (an extract searches only the caller's own issuances). Repeating it
 * deletes nothing more. The erasure is recorded first (`ErasedScopesRepository`), under the account's lock: issuances
 * being made are waited for (and deleted below), and a job in flight that comes later makes none.
 */
@Injectable()
export class EraseAccountIssuancesUseCase {
  constructor(
    private readonly rows: AccountErasureRepository,
    private readonly erased: ErasedScopesRepository,
  ) {}

  async execute(tx: Transaction, scope: ErasureScope): Promise<ErasedIssuanceRows> {
    await this.erased.markErased(tx, scope);
    return this.rows.deleteAccount(tx, scope);
  }
}

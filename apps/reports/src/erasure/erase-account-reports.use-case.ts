import { ErasureScope } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedReportRows } from './account-erasure.repository';

/**
 * An erased account (`evt.gateway.account.erasure-requested`), or one erased order of it
 * (`evt.orders.order.erasure-requested`, only that order's rows): its report rows are deleted (the PDFs themselves are
 * objects, deleted by the retention service). Repeating it deletes nothing more.
 */
@Injectable()
export class EraseAccountReportsUseCase {
  constructor(private readonly rows: AccountErasureRepository) {}

  execute(tx: Transaction, scope: ErasureScope): Promise<ErasedReportRows> {
    return this.rows.deleteAccount(tx, scope);
  }
}

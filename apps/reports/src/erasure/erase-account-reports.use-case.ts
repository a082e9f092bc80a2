import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedReportRows } from './account-erasure.repository';

/**
 * An erased account (`evt.gateway.account.erasure-requested`): its report rows are deleted (the PDFs themselves are
 * objects, deleted by the retention service). Repeating it deletes nothing more.
 */
@Injectable()
export class EraseAccountReportsUseCase {
  constructor(private readonly rows: AccountErasureRepository) {}

  execute(tx: Transaction, accountId: string): Promise<ErasedReportRows> {
    return this.rows.deleteAccount(tx, accountId);
  }
}

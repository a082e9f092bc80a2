import { ErasureScope } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ReportEntity } from '../reports/report.entity';

/** What an account's erasure deleted from the reports schema. */
export interface ErasedReportRows {
  reports: number;
}

/** Every row of one account (or of one order of it, `scope.orderId`) in the reports schema, deleted in the caller's transaction. */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  async deleteAccount(tx: Transaction, scope: ErasureScope): Promise<ErasedReportRows> {
    const reports = await this.db(tx).delete(ReportEntity, scope.orderId === undefined ? { accountId: scope.accountId } : { accountId: scope.accountId, orderId: scope.orderId });
    return { reports: reports.affected ?? 0 };
  }
}

import { ErasureScope } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { IssuanceEntity } from '../issuance/issuance.entity';

/** What an account's erasure deleted from the watermark schema. */
export interface ErasedIssuanceRows {
  issuances: number;
}

/**
 * Every row of one account (or of one order of it, `scope.orderId`) in the watermark schema (the issuance registry),
 * deleted in the caller's transaction.
 */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  async deleteAccount(tx: Transaction, scope: ErasureScope): Promise<ErasedIssuanceRows> {
    const issuances = await this.db(tx).delete(IssuanceEntity, scope.orderId === undefined ? { accountId: scope.accountId } : { accountId: scope.accountId, orderId: scope.orderId });
    return { issuances: issuances.affected ?? 0 };
  }
}

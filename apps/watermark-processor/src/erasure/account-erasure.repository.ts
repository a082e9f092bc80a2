import { ErasureScope } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { IssuanceEntity } from '../issuance/issuance.entity';
import { ISSUANCE_ERASURE_LOCK } from '../issuance/issuance.repository';

/** What an account's erasure deleted from the watermark schema. */
export interface ErasedIssuanceRows {
  issuances: number;
}

/**
 * Every row of one account (or of one order of it, `scope.orderId`) in the watermark schema (the issuance registry),
 * deleted in the caller's transaction, and the scope recorded as erased (`ErasedScopeEntity`) so that no job in
 * flight issues a mark for it afterwards.
 */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  async deleteAccount(tx: Transaction, scope: ErasureScope): Promise<ErasedIssuanceRows> {
    // Issuances being made wait for the erasure, and find it; those made before are deleted below.
    await this.advisoryLock(tx, ISSUANCE_ERASURE_LOCK, scope.accountId, 'exclusive');
    await this.db(tx).query('INSERT INTO erased_scope (account_id, order_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [scope.accountId, scope.orderId ?? '0']);
    const issuances = await this.db(tx).delete(IssuanceEntity, scope.orderId === undefined ? { accountId: scope.accountId } : { accountId: scope.accountId, orderId: scope.orderId });
    return { issuances: issuances.affected ?? 0 };
  }
}

import { ErasureScope } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { UploadSlotEntity } from '../slots/upload-slot.entity';

/** What an account's erasure deleted from the uploads schema. */
export interface ErasedUploadRows {
  slots: number;
}

/** Every row of one account (or of one order of it, `scope.orderId`) in the uploads schema, deleted in the caller's transaction. */
@Injectable()
export class AccountErasureRepository extends TransactionalRepository {
  async deleteAccount(tx: Transaction, scope: ErasureScope): Promise<ErasedUploadRows> {
    const slots = await this.db(tx).delete(UploadSlotEntity, scope.orderId === undefined ? { accountId: scope.accountId } : { accountId: scope.accountId, orderId: scope.orderId });
    return { slots: slots.affected ?? 0 };
  }
}

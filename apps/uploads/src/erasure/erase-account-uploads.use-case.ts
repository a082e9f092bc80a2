import { ErasureScope } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedUploadRows } from './account-erasure.repository';

/**
 * An erased account (`evt.gateway.account.erasure-requested`), or one erased order of it
 * (`evt.orders.order.erasure-requested`, only that order's rows): its upload slots (file names in their keys, the
 * `originalFileUrl`s it gave) are deleted. Its objects are the retention service's to delete. Repeating it deletes
 * nothing more.
 */
@Injectable()
export class EraseAccountUploadsUseCase {
  constructor(private readonly rows: AccountErasureRepository) {}

  execute(tx: Transaction, scope: ErasureScope): Promise<ErasedUploadRows> {
    return this.rows.deleteAccount(tx, scope);
  }
}

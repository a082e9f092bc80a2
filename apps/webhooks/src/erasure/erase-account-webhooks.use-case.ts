import { ErasureScope } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedWebhookRows } from './account-erasure.repository';

/**
 * An erased order (`evt.orders.order.erasure-requested`): its deliveries. An erased account
 * (`evt.gateway.account.erasure-requested`): its webhooks (URLs, encrypted secrets), every
 * delivery (payloads with file names and found texts), pending ones too, and the owner's e-mail address are
 * deleted. Its keys are already refused by the gateway, so nothing lists or retries them any more. Repeating it
 * deletes nothing more.
 */
@Injectable()
export class EraseAccountWebhooksUseCase {
  constructor(private readonly rows: AccountErasureRepository) {}

  execute(tx: Transaction, scope: ErasureScope): Promise<ErasedWebhookRows> {
    return this.rows.deleteAccount(tx, scope);
  }
}

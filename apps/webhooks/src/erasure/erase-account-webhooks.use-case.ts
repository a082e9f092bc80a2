import { ErasureScope } from '@cp/contracts';
import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountErasureRepository, ErasedWebhookRows } from './account-erasure.repository';

/**
 * An erased order (`evt.orders.order.erasure-requested`): its deliveries. An erased account
 * (`evt.gateway.account.erasure-requested`): its webhooks (URLs, encrypted secrets), every
 * delivery (payloads with file names and found texts), pending ones too, and the owner's e-mail address are
 * deleted. Its keys are already refused by the gateway, so nothing lists or retries them any more. Repeating it
 * deletes nothing more. The erasure is recorded first (`erased_scope`): an event of the account or order that another
 * consumer handles after it (a late `account created`, order event) would otherwise write its rows again.
 */
@Injectable()
export class EraseAccountWebhooksUseCase {
  constructor(
    private readonly rows: AccountErasureRepository,
    private readonly erased: ErasedScopesRepository,
  ) {}

  async execute(tx: Transaction, scope: ErasureScope): Promise<ErasedWebhookRows> {
    await this.erased.markErased(tx, scope);
    return this.rows.deleteAccount(tx, scope);
  }
}

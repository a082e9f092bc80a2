import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { AccountContactsRepository } from './account-contacts.repository';

/**
 * A new account's owner address, where failure e-mails go (`evt.gateway.account.created`). Not for an account erased
 * meanwhile: the event can be handled after the erasure (another consumer), and would store the address again.
 */
@Injectable()
export class RememberAccountContactUseCase {
  constructor(
    private readonly contacts: AccountContactsRepository,
    private readonly erased: ErasedScopesRepository,
  ) {}

  async execute(tx: Transaction, accountId: string, ownerEmail: string | null): Promise<void> {
    if (await this.erased.isErased(tx, accountId)) {
      return;
    }
    await this.contacts.remember(tx, accountId, ownerEmail);
  }
}

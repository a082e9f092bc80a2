import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { CreditLedgerRepository } from './credit-ledger.repository';

/**
 * A new account (`evt.gateway.account.created`) starts with an empty balance, so its credits are known before the
 * first grant. Not for an account erased meanwhile: the event can be handled after the erasure (another consumer).
 */
@Injectable()
export class OpenAccountLedgerUseCase {
  constructor(
    private readonly ledger: CreditLedgerRepository,
    private readonly erased: ErasedScopesRepository,
  ) {}

  async execute(tx: Transaction, accountId: string): Promise<void> {
    if (await this.erased.isErased(tx, accountId)) {
      return;
    }
    await this.ledger.openAccount(tx, accountId);
  }
}

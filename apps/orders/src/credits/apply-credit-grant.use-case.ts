import { CreditsGrantedEvent } from '@cp/contracts';
import { ErasedScopesRepository, Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { CreditLedgerRepository, grantReference } from './credit-ledger.repository';

/**
 * Credits granted by an operator (admin CLI → gateway outbox) land in the ledger once per grant. Not for an account
 * erased meanwhile: a grant handled after the erasure (another consumer) would open its ledger again.
 */
@Injectable()
export class ApplyCreditGrantUseCase {
  constructor(
    private readonly ledger: CreditLedgerRepository,
    private readonly erased: ErasedScopesRepository,
  ) {}

  async execute(tx: Transaction, grant: CreditsGrantedEvent): Promise<void> {
    if (await this.erased.isErased(tx, grant.accountId)) {
      return;
    }
    await this.ledger.apply(tx, grant.accountId, grant.amount, grantReference(grant.grantId), grant.reason);
  }
}

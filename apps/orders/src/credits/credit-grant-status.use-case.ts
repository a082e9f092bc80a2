import { CreditGrantQuery, CreditGrantView } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { CreditLedgerRepository, grantReference } from './credit-ledger.repository';

/** Whether one operator grant is in the ledger yet, and the balance it left (the admin CLI waits on it). */
@Injectable()
export class CreditGrantStatusUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  execute(query: CreditGrantQuery): Promise<CreditGrantView> {
    // One snapshot: the grant and the balance it is part of are read together.
    return this.transactions.run(async (tx) => ({
      applied: await this.ledger.hasEntry(tx, query.accountId, grantReference(query.grantId)),
      balance: await this.ledger.balance(tx, query.accountId),
    }));
  }
}

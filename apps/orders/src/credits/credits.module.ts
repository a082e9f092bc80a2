import { Module } from '@nestjs/common';
import { AccountCreatedConsumer } from './account-created.consumer';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditsGrantedConsumer } from './credits-granted.consumer';

@Module({
  providers: [CreditLedgerRepository, CreditsGrantedConsumer, AccountCreatedConsumer],
  exports: [CreditLedgerRepository],
})
export class CreditsModule {}

import { Module } from '@nestjs/common';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditsGrantedConsumer } from './credits-granted.consumer';

@Module({
  providers: [CreditLedgerRepository, CreditsGrantedConsumer],
  exports: [CreditLedgerRepository],
})
export class CreditsModule {}

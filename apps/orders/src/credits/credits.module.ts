import { Module } from '@nestjs/common';
import { AccountCreatedConsumer } from './account-created.consumer';
import { CreditGrantStatusUseCase } from './credit-grant-status.use-case';
import { CreditGrantRpcController } from './credit-grant.controller';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditsGrantedConsumer } from './credits-granted.consumer';

@Module({
  controllers: [CreditGrantRpcController],
  providers: [CreditLedgerRepository, CreditsGrantedConsumer, AccountCreatedConsumer, CreditGrantStatusUseCase],
  exports: [CreditLedgerRepository],
})
export class CreditsModule {}

import { ErasedScopesRepository } from '@cp/database';
import { Module } from '@nestjs/common';
import { AccountCreatedConsumer } from './account-created.consumer';
import { ApplyCreditGrantUseCase } from './apply-credit-grant.use-case';
import { CreditGrantStatusUseCase } from './credit-grant-status.use-case';
import { CreditGrantRpcController } from './credit-grant.controller';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditsGrantedConsumer } from './credits-granted.consumer';
import { OpenAccountLedgerUseCase } from './open-account-ledger.use-case';

@Module({
  controllers: [CreditGrantRpcController],
  providers: [CreditLedgerRepository, ErasedScopesRepository, CreditsGrantedConsumer, AccountCreatedConsumer, ApplyCreditGrantUseCase, OpenAccountLedgerUseCase, CreditGrantStatusUseCase],
  exports: [CreditLedgerRepository, ErasedScopesRepository],
})
export class CreditsModule {}

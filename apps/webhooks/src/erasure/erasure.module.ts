import { ErasedScopesRepository } from '@cp/database';
import { Module } from '@nestjs/common';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { OrderErasureConsumer } from './order-erasure.consumer';
import { EraseAccountWebhooksUseCase } from './erase-account-webhooks.use-case';

/** An operator's account or order erasure, for the webhooks schema; what was erased, for what could write it again. */
@Module({
  providers: [AccountErasureRepository, ErasedScopesRepository, EraseAccountWebhooksUseCase, AccountErasureConsumer, OrderErasureConsumer],
  exports: [ErasedScopesRepository],
})
export class ErasureModule {}

import { Module } from '@nestjs/common';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { EraseAccountWebhooksUseCase } from './erase-account-webhooks.use-case';

/** An operator's account erasure, for the webhooks schema. */
@Module({
  providers: [AccountErasureRepository, EraseAccountWebhooksUseCase, AccountErasureConsumer],
})
export class ErasureModule {}

import { Module } from '@nestjs/common';
import { AccountErasureConsumer } from './account-erasure.consumer';
import { AccountErasureRepository } from './account-erasure.repository';
import { OrderErasureConsumer } from './order-erasure.consumer';
import { EraseAccountWebhooksUseCase } from './erase-account-webhooks.use-case';

/** An operator's account or order erasure, for the webhooks schema. */
@Module({
  providers: [AccountErasureRepository, EraseAccountWebhooksUseCase, AccountErasureConsumer, OrderErasureConsumer],
})
export class ErasureModule {}

import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { AccountContactsRepository } from './account-contacts.repository';
import { AccountCreatedConsumer } from './account-created.consumer';
import { FailureMailer } from './failure-mailer';
import { NotifyDeliveryFailureUseCase } from './notify-delivery-failure.use-case';
import { RememberAccountContactUseCase } from './remember-account-contact.use-case';

@Module({
  imports: [ErasureModule],
  providers: [AccountContactsRepository, AccountCreatedConsumer, RememberAccountContactUseCase, FailureMailer, NotifyDeliveryFailureUseCase],
  exports: [NotifyDeliveryFailureUseCase],
})
export class NotificationsModule {}

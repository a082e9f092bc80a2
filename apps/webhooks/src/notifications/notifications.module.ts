import { Module } from '@nestjs/common';
import { AccountContactsRepository } from './account-contacts.repository';
import { AccountCreatedConsumer } from './account-created.consumer';
import { FailureMailer } from './failure-mailer';
import { NotifyDeliveryFailureUseCase } from './notify-delivery-failure.use-case';

@Module({
  providers: [AccountContactsRepository, AccountCreatedConsumer, FailureMailer, NotifyDeliveryFailureUseCase],
  exports: [NotifyDeliveryFailureUseCase],
})
export class NotificationsModule {}

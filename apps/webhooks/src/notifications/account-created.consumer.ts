import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { RememberAccountContactUseCase } from './remember-account-contact.use-case';

/** Keeps the owner's address, where failure e-mails go (`RememberAccountContactUseCase`). */
@Injectable()
export class AccountCreatedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly rememberContact: RememberAccountContactUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'webhooks-account-created',
      stream: Streams.events.name,
      message: Events.accountCreated,
      parkOnlyBecause: 'no order is involved: the contact address is remembered on replay',
      handle: async (event, context) => {
        await context.transaction((tx) => this.rememberContact.execute(tx, event.accountId, event.ownerEmail ?? null));
      },
    });
  }
}

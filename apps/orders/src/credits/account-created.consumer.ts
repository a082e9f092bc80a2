import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CreditLedgerRepository } from './credit-ledger.repository';

/** A new account starts with an empty balance, so its credits are known before the first grant. */
@Injectable()
export class AccountCreatedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-account-created',
      stream: Streams.events.name,
      message: Events.accountCreated,
      parkOnlyBecause: "no order is involved: the account's ledger opens when an operator replays the event (`admin parked replay`)",
      handle: async (event, context) => {
        await context.transaction((manager) => this.ledger.openAccount(manager, event.accountId));
      },
    });
  }
}

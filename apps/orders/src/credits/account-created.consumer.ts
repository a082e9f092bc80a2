import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { OpenAccountLedgerUseCase } from './open-account-ledger.use-case';

/** A new account's ledger is opened (`OpenAccountLedgerUseCase`). */
@Injectable()
export class AccountCreatedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly openLedger: OpenAccountLedgerUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-account-created',
      stream: Streams.events.name,
      message: Events.accountCreated,
      parkOnlyBecause: "no order is involved: the account's ledger opens when an operator replays the event (`admin parked replay`)",
      handle: async (event, context) => {
        await context.transaction((tx) => this.openLedger.execute(tx, event.accountId));
      },
    });
  }
}

import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CreditLedgerRepository, grantReference } from './credit-ledger.repository';

/** Credits granted by an operator (admin CLI → gateway outbox) land in the ledger once per grant. */
@Injectable()
export class CreditsGrantedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-credits-granted',
      stream: Streams.events.name,
      message: Events.creditsGranted,
      parkOnlyBecause: 'no order is involved: the grant is applied once an operator replays it (`admin parked replay`; the ledger reference keeps it once)',
      handle: async (event, context) => {
        await context.transaction(async (manager) => {
          await this.ledger.apply(manager, event.accountId, event.amount, grantReference(event.grantId), event.reason);
        });
      },
    });
  }
}

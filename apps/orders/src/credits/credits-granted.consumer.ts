import { Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ApplyCreditGrantUseCase } from './apply-credit-grant.use-case';

/** Credits granted by an operator land in the ledger (`ApplyCreditGrantUseCase`). */
@Injectable()
export class CreditsGrantedConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly applyGrant: ApplyCreditGrantUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'orders-credits-granted',
      stream: Streams.events.name,
      message: Events.creditsGranted,
      parkOnlyBecause: 'no order is involved: the grant is applied once an operator replays it (`admin parked replay`; the ledger reference keeps it once)',
      handle: async (event, context) => {
        await context.transaction((tx) => this.applyGrant.execute(tx, event));
      },
    });
  }
}

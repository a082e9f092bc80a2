import { AccountErasureConsumers, Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EraseAccountIssuancesUseCase } from './erase-account-issuances.use-case';

/** `evt.gateway.account.erasure-requested`: the account's rows of this schema go (`EraseAccountIssuancesUseCase`). */
@Injectable()
export class AccountErasureConsumer implements OnModuleInit {
  private readonly logger = new Logger(AccountErasureConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly erase: EraseAccountIssuancesUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: AccountErasureConsumers.watermark,
      stream: Streams.events.name,
      message: Events.accountErasureRequested,
      parkOnlyBecause: "the account's keys are already refused; its issuances (recipient texts) wait for a replay (`admin parked replay`)",
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          const erased = await this.erase.execute(tx, { accountId: event.accountId });
          this.logger.log({ accountId: event.accountId, erasureId: event.erasureId, ...erased }, 'account erased: watermark rows deleted');
        });
      },
    });
  }
}

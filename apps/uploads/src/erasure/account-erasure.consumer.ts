import { AccountErasureConsumers, Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EraseAccountUploadsUseCase } from './erase-account-uploads.use-case';

/** `evt.gateway.account.erasure-requested`: the account's rows of this schema go (`EraseAccountUploadsUseCase`). */
@Injectable()
export class AccountErasureConsumer implements OnModuleInit {
  private readonly logger = new Logger(AccountErasureConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly erase: EraseAccountUploadsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: AccountErasureConsumers.uploads,
      stream: Streams.events.name,
      message: Events.accountErasureRequested,
      parkOnlyBecause: "the account's keys are already refused; its upload slots wait for a replay (`admin parked replay`)",
      handle: async (event, context) => {
        await context.transaction(async (tx) => {
          const erased = await this.erase.execute(tx, { accountId: event.accountId });
          this.logger.log({ accountId: event.accountId, erasureId: event.erasureId, ...erased }, 'account erased: uploads rows deleted');
        });
      },
    });
  }
}

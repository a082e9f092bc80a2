import { AccountErasureConsumers, Events, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EraseAccountObjectsUseCase } from './erase-account-objects.use-case';

/** `evt.gateway.account.erasure-requested`: the account's objects and schedules go (`EraseAccountObjectsUseCase`). */
@Injectable()
export class AccountErasureConsumer implements OnModuleInit {
  private readonly logger = new Logger(AccountErasureConsumer.name);

  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly erase: EraseAccountObjectsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: AccountErasureConsumers.retention,
      stream: Streams.events.name,
      message: Events.accountErasureRequested,
      parkOnlyBecause: "the account's keys are already refused; its objects in storage wait for a replay (`admin parked replay`)",
      handle: async (event, context) => {
        const erased = await this.erase.execute({ accountId: event.accountId }, (work) => context.transaction(work));
        this.logger.log({ accountId: event.accountId, erasureId: event.erasureId, ...erased }, 'account erased: objects and schedules deleted');
      },
    });
  }
}

import { Jobs, Streams } from '@cp/contracts';
import { MessagingRuntime } from '@cp/messaging';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { RegisterSlotsUseCase } from './register-slots.use-case';

/**
 * The slots of a new order from the orders outbox (`job.uploads.register-slots`, written by the statement that
 * created the order): registered once whatever became of the `uploads.register-slots` call after that commit.
 * Usually that call registered them already and this inserts nothing.
 */
@Injectable()
export class RegisterSlotsConsumer implements OnModuleInit {
  constructor(
    private readonly messaging: MessagingRuntime,
    private readonly registration: RegisterSlotsUseCase,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-register-slots',
      stream: Streams.jobs.name,
      message: Jobs.uploadsRegisterSlots,
      concurrency: 4,
      parkOnlyBecause:
        'an order whose slots are not registered stays pending (or inProgress waiting for its URL files) until the upload window or the stuck-order sweep fails it and gives its credits back; a replay registers them',
      handle: async (job, context) => {
        await context.transaction(async (tx) => {
          await this.registration.execute(tx, job);
        });
      },
    });
  }
}

import { TransactionRepository } from '@cp/database';
import { ConsumerDefinition, HandlerContext } from './event-consumer';
import { MessagingRuntime } from './messaging.module';

/**
 * For tests of one consumer's handler on a real database, without NATS: the definition `install` registers (a
 * consumer's `onModuleInit` given this runtime). Throws when it registers nothing.
 */
export function registeredConsumer<TData extends object>(install: (messaging: MessagingRuntime) => void): ConsumerDefinition<TData> {
  let registered: ConsumerDefinition<TData> | undefined;
  // Only `register` is called at module init; the rest of the runtime (NATS) is not needed to run a handler.
  const messaging = { register: (definition: ConsumerDefinition<TData>) => (registered = definition) } as unknown as MessagingRuntime;
  install(messaging);
  if (!registered) {
    throw new Error('the consumer registered nothing');
  }
  return registered;
}

/**
 * One delivery of `event` as the runtime makes it, without the inbox (so a test shows the handler itself is
 * repeatable): skipped when the definition's `skip` says so, else handled in transactions of `transactions`.
 */
export async function deliverDirectly<TData extends object>(definition: ConsumerDefinition<TData>, transactions: TransactionRepository, event: TData, eventId: string): Promise<void> {
  if (definition.skip?.(event)) {
    return;
  }
  const context: HandlerContext = {
    eventId,
    deliveryCount: 1,
    signal: new AbortController().signal,
    transaction: async (work) => {
      await transactions.run(work);
      return true;
    },
  };
  await definition.handle(event, context);
}

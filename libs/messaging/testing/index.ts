import type { Transaction, TransactionRepository } from '@cp/database';
import type { HandlerContext } from '../src/event-consumer';

/**
 * A handler context for unit tests of consumers and use cases: the first delivery of event `eventId`, a deadline
 * that never fires, and a "transaction" that runs its work with a bare manager (the work's repositories are fakes).
 */
export function inlineHandlerContext(eventId = 'e-1'): HandlerContext {
  return {
    eventId,
    deliveryCount: 1,
    signal: new AbortController().signal,
    transaction: async (work) => {
      await work({} as Transaction);
      return true;
    },
  };
}

/** A `TransactionRepository` for unit tests: runs the work at once with a bare handle (the work's repositories are fakes). */
export function inlineTransactions(): TransactionRepository {
  const run = <T>(work: (tx: Transaction) => Promise<T>): Promise<T> => work({} as Transaction);
  return { run, statementByStatement: run } as unknown as TransactionRepository;
}

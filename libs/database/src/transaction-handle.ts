import { EntityManager } from 'typeorm';

declare const OPEN_TRANSACTION: unique symbol;

/**
 * An open database transaction as use cases hold it (issue 31: the repository rule in the build). They pass it to
 * repositories and to the outbox, so that every write shares the transaction, but cannot read or write through it:
 * it has no `query`, `find` or `getRepository`, the compiler refuses them. Only repositories turn it back into the
 * TypeORM `EntityManager` it is (`TransactionalRepository.db`).
 */
export interface Transaction {
  readonly [OPEN_TRANSACTION]: true;
}

/** The handle of a transaction TypeORM opened (for the code that opens transactions: `TransactionRepository`, the event consumer). */
export function asTransaction(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}

/**
 * The manager behind a handle. Not exported by `@cp/database`: outside this library only repositories reach it,
 * through `TransactionalRepository.db`.
 */
export function managerOf(tx: Transaction): EntityManager {
  return tx as unknown as EntityManager;
}

/** What every repository extends: the one way from a transaction handle to the database. */
export abstract class TransactionalRepository {
  /** The TypeORM manager of `tx`, for this repository's statements. */
  protected db(tx: Transaction): EntityManager {
    return managerOf(tx);
  }

  /**
   * A transaction-scoped advisory lock on (`space`, `key`), each hashed to an int4, held until `tx` ends: shared holders
   * do not wait for each other, an exclusive one waits for them all and they for it. A check that must see what the
   * holder it waited for wrote is a statement of its own after this one (read committed: a statement's snapshot is
   * taken when it starts, before any wait inside it).
   */
  protected async advisoryLock(tx: Transaction, space: string, key: string, mode: 'shared' | 'exclusive'): Promise<void> {
    await this.db(tx).query(mode === 'shared' ? 'SELECT pg_advisory_xact_lock_shared(hashtext($1), hashtext($2))' : 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [space, key]);
  }
}

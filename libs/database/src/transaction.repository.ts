import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The handle a use case passes to repositories so their writes share one transaction. Use cases never
 * call it themselves (only `*.repository.ts` files touch TypeORM).
 */
export type Transaction = EntityManager;

/** Runs use-case work in one database transaction. */
@Injectable()
export class TransactionRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Runs work whose statements each commit on their own: for work that reads, then writes everything in one
   * statement (`WriteBatch`), which is atomic by itself; no BEGIN and COMMIT round trips.
   */
  statementByStatement<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work(this.dataSource.manager);
  }
}

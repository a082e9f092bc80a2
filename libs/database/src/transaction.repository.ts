import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { asTransaction, Transaction } from './transaction-handle';

export { asTransaction, Transaction, TransactionalRepository } from './transaction-handle';

/** Runs use-case work in one database transaction. */
@Injectable()
export class TransactionRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(asTransaction(manager)));
  }

  /**
   * Runs work whose statements each commit on their own: for work that reads, then writes everything in one
   * statement (`WriteBatch`), which is atomic by itself; no BEGIN and COMMIT round trips.
   */
  statementByStatement<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work(asTransaction(this.dataSource.manager));
  }
}

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
}

import { KeyMode } from '@cp/contracts';
import { constraintViolated, SqlState, tableSql, Transaction, WriteBatch, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { IdempotencyRecordEntity } from './idempotency-record.entity';

/** An idempotency key is scoped to the account, the key mode and the creation endpoint. */
export interface IdempotencyScope {
  accountId: string;
  mode: KeyMode;
  operation: string;
  idempotencyKey: string;
}

/** The record's primary key (account, mode, operation, key), as its migration (EmbedOrders) named it. */
const RECORD_KEY = 'PK_0bd8e531cd6166167eaebdf4e5f';

/** Another request with the same idempotency key committed its record first: look again, and replay it. */
export class IdempotencyKeyTakenError extends Error {
  constructor() {
    super('idempotency key taken by a concurrent request');
  }
}

/** Idempotency records of order creation. */
@Injectable()
export class IdempotencyRepository extends TransactionalRepository {
  /**
   * Serialises concurrent requests with the same key until `tx` ends (a transaction-scoped advisory lock:
   * released at commit or rollback, so it is never held across a remote call made after the transaction).
   */
  async lockScope(tx: Transaction, scope: IdempotencyScope): Promise<void> {
    await this.db(tx).query('SELECT pg_advisory_xact_lock(hashtext($1))', [JSON.stringify(scope)]);
  }

  async find(tx: Transaction, scope: IdempotencyScope): Promise<{ requestHash: string; orderId: string } | null> {
    return this.db(tx).findOneBy(IdempotencyRecordEntity, { ...scope });
  }

  async insert(tx: Transaction, scope: IdempotencyScope, requestHash: string, orderId: string): Promise<void> {
    const batch = new WriteBatch();
    this.addInsert(batch, tx, scope, requestHash, orderId);
    await batch.execute(this.db(tx));
  }

  /**
   * `insert` as a part of a statement of several writes (order creation writes everything in one). The
   * primary key serialises requests with the same key: the second waits for the first's commit, then its
   * whole statement fails with IdempotencyKeyTakenError.
   */
  addInsert(batch: WriteBatch, tx: Transaction, scope: IdempotencyScope, requestHash: string, orderId: string): void {
    batch.write(
      `INSERT INTO ${tableSql(this.db(tx), IdempotencyRecordEntity)} (account_id, mode, operation, idempotency_key, request_hash, order_id)
       VALUES (${batch.param(scope.accountId, 'bigint')}, ${batch.param(scope.mode)}, ${batch.param(scope.operation)}, ${batch.param(scope.idempotencyKey)},
               ${batch.param(requestHash)}, ${batch.param(orderId, 'bigint')})`,
    );
    batch.translate((error) => (constraintViolated(error, SqlState.uniqueViolation, RECORD_KEY) ? new IdempotencyKeyTakenError() : undefined));
  }
}

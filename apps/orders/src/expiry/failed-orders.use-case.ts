import { FailedOrdersPage, FailedOrdersQuery } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { FailedOrdersRepository } from './failed-orders.repository';

/**
 * `orders.failed-orders`: the retention service's reconciliation walks every order that failed, in pages, so an
 * order whose `failed` status event it missed (the EVENTS stream drops its oldest messages when full or old) still
 * has its objects deleted a grace period after its failure rather than kept until its expiry. Orders owns
 * `failedAt`: set once, when the order fails (a failed order never fails again), so a page read once stays right.
 * One statement on a partial index; no lock.
 */
@Injectable()
export class FailedOrdersUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly failedOrders: FailedOrdersRepository,
  ) {}

  async execute(query: FailedOrdersQuery): Promise<FailedOrdersPage> {
    const orders = await this.transactions.statementByStatement((tx) => this.failedOrders.failedBetween(tx, query.after ?? null, query.failedUpTo, query.limit));
    return { orders };
  }
}

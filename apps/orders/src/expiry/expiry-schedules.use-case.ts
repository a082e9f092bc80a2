import { ExpirySchedulesPage, ExpirySchedulesQuery } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ExpirySchedulesRepository } from './expiry-schedules.repository';

/**
 * `orders.expiry-schedules`: the retention service's reconciliation walks every order's expiry in pages, so an
 * order whose status events it missed (the EVENTS stream drops its oldest messages when full or old) is still
 * scheduled and its files deleted. Orders owns `expiresAt`: set once at creation (`createdAt + ORDER_RETENTION_HOURS`,
 * never null, never changed), so a page read once stays right. One statement on an index; no lock.
 */
@Injectable()
export class ExpirySchedulesUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly schedules: ExpirySchedulesRepository,
  ) {}

  async execute(query: ExpirySchedulesQuery): Promise<ExpirySchedulesPage> {
    const schedules = await this.transactions.statementByStatement((tx) => this.schedules.expiringBetween(tx, query.after ?? null, query.expiresUpTo, query.limit));
    return { schedules };
  }
}

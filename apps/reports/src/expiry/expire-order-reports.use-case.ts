import { Clock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { StoredObject } from '../domain/report';
import { ReportsRepository } from '../reports/reports.repository';

/** Marks every report of an expired order and drops its object keys; returns the objects to delete. */
@Injectable()
export class ExpireOrderReportsUseCase {
  constructor(
    private readonly repository: ReportsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, orderId: string): Promise<StoredObject[]> {
    await this.repository.markOrderExpired(tx, orderId, this.clock.now());
    const dropped: StoredObject[] = [];
    for (const report of await this.repository.lockAllOfOrder(tx, orderId)) {
      const object = report.expire();
      if (object) dropped.push(object);
      await this.repository.save(tx, report, []);
    }
    return dropped;
  }
}

import { Clock } from '@cp/clock';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { ReportsRepository } from '../reports/reports.repository';

/** Marks every report of an expired order and drops its object keys; returns the objects to delete. */
@Injectable()
export class ExpireOrderReportsUseCase {
  constructor(
    private readonly repository: ReportsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, orderId: string): Promise<Array<{ bucket: string; key: string }>> {
    await this.repository.markOrderExpired(tx, orderId, this.clock.now());
    const rows = await this.repository.lockAllOfOrder(tx, orderId);
    const dropped: Array<{ bucket: string; key: string }> = [];
    for (const row of rows) {
      if (row.objectBucket && row.objectKey) {
        dropped.push({ bucket: row.objectBucket, key: row.objectKey });
      }
      row.orderExpired = true;
      row.objectBucket = null;
      row.objectKey = null;
      await this.repository.save(tx, row);
    }
    return dropped;
  }
}

import { Clock } from '@cp/clock';
import { HandlerContext } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { Injectable, Logger } from '@nestjs/common';
import { StoredObject } from '../domain/report';
import { ReportsRepository } from '../reports/reports.repository';

/**
 * The order expired: every report of it answers ORDER_EXPIRED from now on (recorded once, with the event, in the
 * handler's transaction), and no report keeps pointing at an object the retention service deletes.
 */
@Injectable()
export class ExpireOrderReportsUseCase {
  private readonly logger = new Logger(ExpireOrderReportsUseCase.name);

  constructor(
    private readonly repository: ReportsRepository,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {}

  async execute(orderId: string, context: Pick<HandlerContext, 'transaction'>): Promise<void> {
    const dropped: StoredObject[] = [];
    await context.transaction(async (tx) => {
      await this.repository.markOrderExpired(tx, orderId, this.clock.now());
      for (const report of await this.repository.lockAllOfOrder(tx, orderId)) {
        const object = report.expire();
        if (object) dropped.push(object);
        await this.repository.save(tx, report, []);
      }
    });
    // After the commit: the reports no longer point here. Retention deletes the prefix too; this is belt and braces.
    for (const object of dropped) {
      await this.storage.remove(object.bucket, [object.key]).catch((error: unknown) => {
        this.logger.warn({ err: error, key: object.key }, 'could not delete an expired report object (retention will)');
      });
    }
  }
}

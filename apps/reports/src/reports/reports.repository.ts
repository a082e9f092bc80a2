import { OutboxMessage, ReportLocale } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { OutboxWriter } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, LessThan } from 'typeorm';
import { Report, ReportState } from '../domain/report';
import { ExpiredOrderEntity } from '../expiry/expired-order.entity';
import { ReportEntity } from './report.entity';

/**
 * Persistence of the report aggregate: loads it, and saves what a transition changed together with the events it
 * returned (outbox), in the caller's transaction. No rules here: they are `Report`'s.
 */
@Injectable()
export class ReportsRepository extends TransactionalRepository {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {
    super();
  }

  async find(orderId: string, locale: ReportLocale): Promise<Report | null> {
    return toReport(await this.dataSource.getRepository(ReportEntity).findOneBy({ orderId, locale }));
  }

  /** Locks the report (if any) for the rest of the transaction. */
  async lock(tx: Transaction, orderId: string, locale: ReportLocale): Promise<Report | null> {
    const row = await this.db(tx)
      .getRepository(ReportEntity)
      .createQueryBuilder('report')
      .where('report.orderId = :orderId AND report.locale = :locale', { orderId, locale })
      .setLock('pessimistic_write')
      .getOne();
    return toReport(row);
  }

  /** Inserts a new report with its events unless a concurrent request already did; true when this call inserted it. */
  async insertIfAbsent(tx: Transaction, report: Report, events: readonly OutboxMessage[]): Promise<boolean> {
    const result = await this.db(tx)
      .createQueryBuilder()
      .insert()
      .into(ReportEntity)
      .values(toRow(report))
      .orIgnore()
      .returning(['orderId'])
      .execute();
    const inserted = (result.raw as unknown[]).length > 0;
    if (inserted) {
      await this.outbox.addAll(tx, events);
    }
    return inserted;
  }

  async save(tx: Transaction, report: Report, events: readonly OutboxMessage[]): Promise<void> {
    await this.db(tx).getRepository(ReportEntity).save(toRow(report));
    await this.outbox.addAll(tx, events);
  }

  async isOrderExpired(orderId: string): Promise<boolean> {
    return this.dataSource.getRepository(ExpiredOrderEntity).existsBy({ orderId });
  }

  async markOrderExpired(tx: Transaction, orderId: string, at: Date): Promise<void> {
    await this.db(tx).createQueryBuilder().insert().into(ExpiredOrderEntity).values({ orderId, expiredAt: at }).orIgnore().execute();
  }

  async lockAllOfOrder(tx: Transaction, orderId: string): Promise<Report[]> {
    const rows = await this.db(tx)
      .getRepository(ReportEntity)
      .createQueryBuilder('report')
      .where('report.orderId = :orderId', { orderId })
      .orderBy('report.locale')
      .setLock('pessimistic_write')
      .getMany();
    return rows.map((row) => Report.fromState(row));
  }

  /** Unfinished reports whose last status change is older than `before` (candidates for the sweep). */
  async findStuck(before: Date, limit: number): Promise<Report[]> {
    const rows = await this.dataSource.getRepository(ReportEntity).find({
      where: { status: In(['queued', 'processing']), statusChangedAt: LessThan(before), orderExpired: false },
      order: { statusChangedAt: 'ASC' },
      take: limit,
    });
    return rows.map((row) => Report.fromState(row));
  }
}

function toReport(row: ReportEntity | null): Report | null {
  return row ? Report.fromState(row) : null;
}

function toRow(report: Report): ReportEntity {
  return Object.assign(new ReportEntity(), report.state satisfies ReportState);
}

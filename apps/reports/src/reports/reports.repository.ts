import { Transaction, TransactionalRepository, asTransaction } from '@cp/database';
import { ReportLocale } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, LessThan } from 'typeorm';
import { ExpiredOrderEntity } from '../expiry/expired-order.entity';
import { ReportEntity } from './report.entity';

/** Report rows; writes take the caller's transaction so the outbox event commits with them. */
@Injectable()
export class ReportsRepository extends TransactionalRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    super();
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(asTransaction(manager)));
  }

  find(orderId: string, locale: ReportLocale): Promise<ReportEntity | null> {
    return this.dataSource.getRepository(ReportEntity).findOneBy({ orderId, locale });
  }

  /** Locks the row (if any) for the rest of the transaction. */
  lock(tx: Transaction, orderId: string, locale: ReportLocale): Promise<ReportEntity | null> {
    return this.db(tx)
      .getRepository(ReportEntity)
      .createQueryBuilder('report')
      .where('report.orderId = :orderId AND report.locale = :locale', { orderId, locale })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Inserts unless a concurrent request already did; true when this call inserted the row. */
  async insertIfAbsent(tx: Transaction, row: ReportEntity): Promise<boolean> {
    const result = await this.db(tx)
      .createQueryBuilder()
      .insert()
      .into(ReportEntity)
      .values(row)
      .orIgnore()
      .returning(['orderId'])
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  async save(tx: Transaction, row: ReportEntity): Promise<void> {
    await this.db(tx).getRepository(ReportEntity).save(row);
  }

  async isOrderExpired(orderId: string): Promise<boolean> {
    return this.dataSource.getRepository(ExpiredOrderEntity).existsBy({ orderId });
  }

  async markOrderExpired(tx: Transaction, orderId: string, at: Date): Promise<void> {
    await this.db(tx).createQueryBuilder().insert().into(ExpiredOrderEntity).values({ orderId, expiredAt: at }).orIgnore().execute();
  }

  lockAllOfOrder(tx: Transaction, orderId: string): Promise<ReportEntity[]> {
    return this.db(tx)
      .getRepository(ReportEntity)
      .createQueryBuilder('report')
      .where('report.orderId = :orderId', { orderId })
      .orderBy('report.locale')
      .setLock('pessimistic_write')
      .getMany();
  }

  /** Unfinished reports whose last status change is older than `before` (candidates for the sweep). */
  findStuck(before: Date, limit: number): Promise<ReportEntity[]> {
    return this.dataSource.getRepository(ReportEntity).find({
      where: { status: In(['queued', 'processing']), statusChangedAt: LessThan(before), orderExpired: false },
      order: { statusChangedAt: 'ASC' },
      take: limit,
    });
  }
}

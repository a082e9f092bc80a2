import { Transaction, TransactionalRepository } from '@cp/database';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IssuanceEntity, MarkAlgorithm } from './issuance.entity';

/** The issuance registry: which mark payload was issued to whom, with which text. */
@Injectable()
export class IssuanceRepository extends TransactionalRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    super();
  }

  /** Issuances whose id is the detected payload, for one mark algorithm (more than one never happens; callers check). */
  findByPayload(payload: string, algorithm: MarkAlgorithm): Promise<IssuanceEntity[]> {
    return this.dataSource.manager.findBy(IssuanceEntity, { id: payload, algorithm });
  }

  /** The issuance of an output, created on its first attempt and reused by retries. */
  async findOrCreate(
    tx: Transaction,
    issued: { accountId: string; orderId: string; outputFileId: string; watermarkText: string; algorithm: MarkAlgorithm },
  ): Promise<IssuanceEntity> {
    await this.db(tx).createQueryBuilder().insert().into(IssuanceEntity).values(issued).orIgnore().execute();
    return this.db(tx).findOneByOrFail(IssuanceEntity, { outputFileId: issued.outputFileId });
  }
}

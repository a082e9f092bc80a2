import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { IssuanceEntity, MarkAlgorithm } from './issuance.entity';

/** The issuance registry: which mark payload was issued to whom, with which text. */
@Injectable()
export class IssuanceRepository {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** Issuances whose id is the detected payload, for one mark algorithm (more than one never happens; callers check). */
  findByPayload(payload: string, algorithm: MarkAlgorithm): Promise<IssuanceEntity[]> {
    return this.dataSource.manager.findBy(IssuanceEntity, { id: payload, algorithm });
  }

  /** The issuance of an output, created on its first attempt and reused by retries. */
  async findOrCreate(
    manager: EntityManager,
    issued: { accountId: string; orderId: string; outputFileId: string; watermarkText: string; algorithm: MarkAlgorithm },
  ): Promise<IssuanceEntity> {
    await manager.createQueryBuilder().insert().into(IssuanceEntity).values(issued).orIgnore().execute();
    return manager.findOneByOrFail(IssuanceEntity, { outputFileId: issued.outputFileId });
  }
}

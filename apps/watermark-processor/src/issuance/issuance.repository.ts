import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { IssuanceEntity, MarkAlgorithm } from './issuance.entity';

@Injectable()
export class IssuanceRepository {
  /** The issuance of an output, created on its first attempt and reused by retries. */
  async findOrCreate(
    manager: EntityManager,
    issued: { accountId: string; orderId: string; outputFileId: string; watermarkText: string; algorithm: MarkAlgorithm },
  ): Promise<IssuanceEntity> {
    await manager.createQueryBuilder().insert().into(IssuanceEntity).values(issued).orIgnore().execute();
    return manager.findOneByOrFail(IssuanceEntity, { outputFileId: issued.outputFileId });
  }
}

import { ErasedScopesRepository, Transaction, TransactionalRepository } from '@cp/database';
import { ErasedOrderError } from '@cp/runtime';
import { issuedPayload, isScrambledPayload, MAX_CANDIDATES, serialOfPayload } from '@cp/watermark';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IssuanceEntity, MarkAlgorithm } from './issuance.entity';

/** The payload embedded for an issuance: scrambled since issue 36 (recipients' marks near orthogonal), else its id. */
export function payloadOf(issuance: Pick<IssuanceEntity, 'id' | 'scrambled'>): bigint {
  return issuance.scrambled ? issuedPayload(BigInt(issuance.id)) : BigInt(issuance.id);
}

/** Which original an extract order compares against: its object and the SHA-256 of its bytes. */
export interface OriginalRef {
  accountId: string;
  algorithm: MarkAlgorithm;
  inputKey: string;
  inputSha256: string;
}


/** The issuance registry: which mark payload was issued to whom, with which text. */
@Injectable()
export class IssuanceRepository extends TransactionalRepository {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly erased: ErasedScopesRepository,
  ) {
    super();
  }

  /**
   * Issuances whose embedded payload is `payload`, for one mark algorithm (more than one never happens; callers
   * check). A scrambled payload (top bit set) names the issuance it was made from; any other is an older id.
   */
  findByPayload(payload: bigint, algorithm: MarkAlgorithm): Promise<IssuanceEntity[]> {
    const id = serialOfPayload(payload);
    if (id < 1n || id >= 1n << 63n) return Promise.resolve([]);
    return this.dataSource.manager.findBy(IssuanceEntity, { id: id.toString(), algorithm, scrambled: isScrambledPayload(payload) });
  }

  /**
   * Issue 36: every issuance the same account made from the same original (the same input object, or an input with
   * the same bytes in any order), newest first, at most MAX_CANDIDATES: the recipients candidate tracing tests.
   */
  findCandidates(original: OriginalRef): Promise<IssuanceEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(IssuanceEntity, 'i')
      .where('i.account_id = :accountId AND i.algorithm = :algorithm', { accountId: original.accountId, algorithm: original.algorithm })
      .andWhere('(i.input_sha256 = :sha OR i.input_key = :key)', { sha: original.inputSha256, key: original.inputKey })
      .orderBy('i.id', 'DESC')
      .limit(MAX_CANDIDATES)
      .getMany();
  }

  /**
   * The issuance of an output, created on its first attempt and reused by retries. Refused (`ErasedOrderError`: the
   * job is dropped) for an erased account or order, under the erasure's lock (`ErasedScopesRepository`): a job in flight at the erasure cannot put a recipient's text back in the registry.
   */
  async findOrCreate(
    tx: Transaction,
    issued: { accountId: string; orderId: string; outputFileId: string; watermarkText: string; algorithm: MarkAlgorithm; inputKey?: string; scrambled?: boolean },
  ): Promise<IssuanceEntity> {
    if (await this.erased.isErased(tx, issued.accountId, issued.orderId)) {
      throw new ErasedOrderError(issued.orderId);
    }
    await this.db(tx).createQueryBuilder().insert().into(IssuanceEntity).values(issued).orIgnore().execute();
    return this.db(tx).findOneByOrFail(IssuanceEntity, { outputFileId: issued.outputFileId });
  }

  /** Records the SHA-256 of the input an issuance's mark is embedded in (once; a retry reads the same bytes). */
  async recordInputHash(id: string, sha256: string): Promise<void> {
    await this.dataSource.manager
      .createQueryBuilder()
      .update(IssuanceEntity)
      .set({ inputSha256: sha256 })
      .where('id = :id AND input_sha256 IS NULL', { id })
      .execute();
  }
}

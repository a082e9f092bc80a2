import { Transaction, TransactionalRepository } from '@cp/database';
import { AiDetectionEvidence } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { DetectionEvidenceEntity } from './detection-evidence.entity';
import { DetectionRunEntity } from './detection-run.entity';

@Injectable()
export class DetectionRunRepository extends TransactionalRepository {
  /** The run of a file, created on its first attempt and reused by retries. */
  async start(tx: Transaction, run: { accountId: string; orderId: string; fileId: string }): Promise<DetectionRunEntity> {
    await this.db(tx).createQueryBuilder().insert().into(DetectionRunEntity).values({ ...run, status: 'processing' }).orIgnore().execute();
    return this.db(tx).findOneByOrFail(DetectionRunEntity, { orderId: run.orderId, fileId: run.fileId });
  }

  async complete(
    tx: Transaction,
    runId: string,
    result: { probability: number; category: string; noEvidence: boolean; images: object; durationMs: number },
    evidence: readonly AiDetectionEvidence[],
  ): Promise<void> {
    await this.db(tx).update(DetectionRunEntity, { id: runId }, { status: 'completed', failureCode: null, ...result });
    // A retry that got this far replaces what an interrupted attempt may have left.
    await this.db(tx).delete(DetectionEvidenceEntity, { runId });
    if (evidence.length > 0) {
      await this.db(tx).insert(DetectionEvidenceEntity, evidence.map((e) => ({ runId, ...e })));
    }
  }

  async fail(tx: Transaction, runId: string, failureCode: string): Promise<void> {
    await this.db(tx).update(DetectionRunEntity, { id: runId }, { status: 'failed', failureCode });
  }

  async findWithEvidence(tx: Transaction, orderId: string, fileId: string): Promise<{ run: DetectionRunEntity; evidence: DetectionEvidenceEntity[] } | null> {
    const run = await this.db(tx).findOneBy(DetectionRunEntity, { orderId, fileId });
    if (!run) return null;
    return { run, evidence: await this.db(tx).find(DetectionEvidenceEntity, { where: { runId: run.id }, order: { id: 'ASC' } }) };
  }
}

import { AiDetectionEvidence } from '@cp/contracts';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DetectionEvidenceEntity } from './detection-evidence.entity';
import { DetectionRunEntity } from './detection-run.entity';

@Injectable()
export class DetectionRunRepository {
  /** The run of a file, created on its first attempt and reused by retries. */
  async start(manager: EntityManager, run: { accountId: string; orderId: string; fileId: string }): Promise<DetectionRunEntity> {
    await manager.createQueryBuilder().insert().into(DetectionRunEntity).values({ ...run, status: 'processing' }).orIgnore().execute();
    return manager.findOneByOrFail(DetectionRunEntity, { orderId: run.orderId, fileId: run.fileId });
  }

  async complete(
    manager: EntityManager,
    runId: string,
    result: { probability: number; category: string; noEvidence: boolean; images: object; durationMs: number },
    evidence: readonly AiDetectionEvidence[],
  ): Promise<void> {
    await manager.update(DetectionRunEntity, { id: runId }, { status: 'completed', failureCode: null, ...result });
    // A retry that got this far replaces what an interrupted attempt may have left.
    await manager.delete(DetectionEvidenceEntity, { runId });
    if (evidence.length > 0) {
      await manager.insert(DetectionEvidenceEntity, evidence.map((e) => ({ runId, ...e })));
    }
  }

  async fail(manager: EntityManager, runId: string, failureCode: string): Promise<void> {
    await manager.update(DetectionRunEntity, { id: runId }, { status: 'failed', failureCode });
  }

  async findWithEvidence(manager: EntityManager, orderId: string, fileId: string): Promise<{ run: DetectionRunEntity; evidence: DetectionEvidenceEntity[] } | null> {
    const run = await manager.findOneBy(DetectionRunEntity, { orderId, fileId });
    if (!run) return null;
    return { run, evidence: await manager.find(DetectionEvidenceEntity, { where: { runId: run.id }, order: { id: 'ASC' } }) };
  }
}

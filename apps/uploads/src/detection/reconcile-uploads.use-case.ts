import { Clock } from '@cp/clock';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { UploadSlotEntity } from '../slots/upload-slot.entity';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';

/** Safety net for lost storage notifications: waiting slots are checked against storage directly. */
@Injectable()
export class ReconcileUploadsUseCase {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly storage: ObjectStorage,
    private readonly markUploaded: MarkUploadedUseCase,
    private readonly clock: Clock,
  ) {}

  /** Checks one batch (least recently checked first); returns how many slots turned out uploaded. */
  async execute(batchSize = 100): Promise<number> {
    const now = this.clock.now();
    const slots = await this.dataSource
      .getRepository(UploadSlotEntity)
      .createQueryBuilder('slot')
      .where(`slot.status = 'awaiting' AND slot.mode = 'live'`)
      .andWhere('slot.createdAt < :settled', { settled: new Date(now.getTime() - this.config.reconcile.minAgeMs) })
      .orderBy('slot.lastCheckedAt', 'ASC', 'NULLS FIRST')
      .limit(batchSize)
      .getMany();
    let found = 0;
    for (const slot of slots) {
      const info = await this.storage.stat(slot.bucket, slot.objectKey);
      await this.dataSource.transaction(async (manager) => {
        if (info && (await this.markUploaded.execute(manager, slot.fileId, info.size))) {
          found += 1;
        } else {
          await manager.update(UploadSlotEntity, slot.fileId, { lastCheckedAt: now });
        }
      });
    }
    return found;
  }
}

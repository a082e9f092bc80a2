import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';

/** Safety net for lost storage notifications: waiting slots are checked against storage directly. */
@Injectable()
export class ReconcileUploadsUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly slots: UploadSlotsRepository,
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly storage: ObjectStorage,
    private readonly markUploaded: MarkUploadedUseCase,
    private readonly clock: Clock,
  ) {}

  /** Checks one batch (least recently checked first); returns how many slots turned out uploaded. */
  async execute(batchSize = 100): Promise<number> {
    const now = this.clock.now();
    const slots = await this.slots.findWaiting(new Date(now.getTime() - this.config.reconcile.minAgeMs), batchSize);
    let found = 0;
    for (const slot of slots) {
      const info = await this.storage.stat(slot.bucket, slot.objectKey);
      await this.transactions.run(async (tx) => {
        if (info && (await this.markUploaded.execute(tx, slot.fileId, info.size))) {
          found += 1;
        } else {
          await this.slots.markChecked(tx, slot.fileId, now);
        }
      });
    }
    return found;
  }
}

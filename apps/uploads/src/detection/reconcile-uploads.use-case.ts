import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';

/** Safety net for lost storage notifications: waiting slots are checked against storage directly. */
@Injectable()
export class ReconcileUploadsUseCase {
  private readonly logger = new Logger(ReconcileUploadsUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly slots: UploadSlotsRepository,
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly storage: ObjectStorage,
    private readonly receive: ReceiveUploadUseCase,
    private readonly clock: Clock,
  ) {}

  /** Checks one batch (least recently checked first); returns how many slots turned out uploaded. */
  async execute(batchSize = 100): Promise<number> {
    const now = this.clock.now();
    const slots = await this.slots.findWaiting(new Date(now.getTime() - this.config.reconcile.minAgeMs), batchSize);
    let found = 0;
    for (const slot of slots) {
      const info = await this.storage.stat(slot.bucket, slot.objectKey);
      const received = await this.transactions.run(async (tx) => {
        const outcome = info ? await this.receive.execute(tx, slot.fileId, info.size) : null;
        if (outcome?.outcome === 'recorded') {
          found += 1;
        } else if (outcome?.outcome !== 'refused') {
          await this.slots.markChecked(tx, slot.fileId, now);
        }
        return outcome;
      });
      if (received) {
        // The slot is failed already (its order too); an object storage would not delete now waits for retention.
        await this.receive.discard(received).catch((error: unknown) => this.logger.warn({ fileId: slot.fileId, error: String(error) }, 'refused upload not deleted'));
      }
    }
    return found;
  }
}

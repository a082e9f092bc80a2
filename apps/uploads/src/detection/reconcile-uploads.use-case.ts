import { Clock } from '@cp/clock';
import { V2_REFRESHED_UPLOAD_URL_SECONDS } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';

/**
 * How long after its creation a waiting slot can still matter: the order's upload window (`UPLOAD_WINDOW_HOURS`;
 * past it orders fails a pending order with ORDER_TIMEOUT), plus the longest an upload URL handed out just before the
 * window closed stays valid (`UPLOAD_URL_SECONDS` of v3 and of the order's creation, or the 1 hour of a v2
 * refresh-urls, the most `uploads.upload-urls` signs). URLs are only handed out while the order is pending, so no
 * valid URL points at an older slot.
 */
export function reconcileHorizonMs(config: Pick<UploadsConfig, 'uploadWindowMs' | 'uploadUrlSeconds'>): number {
  return config.uploadWindowMs + Math.max(config.uploadUrlSeconds, V2_REFRESHED_UPLOAD_URL_SECONDS) * 1000;
}

/**
 * Safety net for lost storage notifications: waiting slots are checked against storage directly, only those that
 * can still matter (`reconcileHorizonMs`). Slots of orders that failed, expired or were abandoned stay `awaiting`
 * for good; checked in rotation with the others, they would make each sweep's storage requests and the time to find
 * a lost notification grow without bound.
 */
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
    const slots = await this.slots.findWaiting(
      { after: new Date(now.getTime() - reconcileHorizonMs(this.config)), before: new Date(now.getTime() - this.config.reconcile.minAgeMs) },
      batchSize,
    );
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

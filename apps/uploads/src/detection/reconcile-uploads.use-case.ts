import { Clock } from '@cp/clock';
import { V2_REFRESHED_UPLOAD_URL_SECONDS } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { ObjectInfo, ObjectStorage } from '@cp/storage';
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

/** Checks that fail one after the other before a run stops: storage is down, not one of its objects. */
export const STORAGE_FAILURES_TO_STOP = 3;

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
    let failedInARow = 0;
    for (const slot of slots) {
      let info: ObjectInfo | null;
      try {
        info = await this.storage.stat(slot.bucket, slot.objectKey);
        failedInARow = 0;
      } catch (error) {
        // A slot storage cannot answer for (a key it refuses, a broken object) goes to the back of the rotation
        // and the others are still checked: it used to end the run, and as the least recently checked it came
        // first in every run after, so no lost notification of any account was found for hours.
        this.logger.warn({ fileId: slot.fileId, error: String(error) }, 'upload not checked: storage answered with an error');
        await this.transactions.run((tx) => this.slots.markChecked(tx, slot.fileId, now));
        failedInARow += 1;
        if (failedInARow >= STORAGE_FAILURES_TO_STOP) {
          // storage itself is failing: the rest of the batch waits for the next run
          throw new Error(`storage answered ${failedInARow} checks in a row with an error`, { cause: error });
        }
        continue;
      }
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

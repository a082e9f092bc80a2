import { Clock } from '@cp/clock';
import { ObjectStorage, signUploadToken } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';
import { UploadSlotEntity } from './upload-slot.entity';

/** Live keys: presigned S3 PUT URLs. Test keys: the gateway's sink with a signed token (spec 4.8). */
@Injectable()
export class UploadUrlsService {
  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {}

  /** `validitySeconds` defaults to the v3 900 seconds; v2 refresh-urls asks for 1 hour. */
  async urlFor(
    slot: Pick<UploadSlotEntity, 'mode' | 'bucket' | 'objectKey' | 'orderId' | 'fileId'>,
    validitySeconds: number = this.config.uploadUrlSeconds,
  ): Promise<string> {
    if (slot.mode === 'live') {
      return this.storage.presignPut(slot.bucket, slot.objectKey, validitySeconds);
    }
    const token = signUploadToken(
      { orderId: slot.orderId, fileId: slot.fileId, expiresAt: this.clock.nowMs() + validitySeconds * 1000 },
      this.config.testUploadSecret,
    );
    return `${this.config.publicBaseUrl}/api/v2/test-uploads/${token}`;
  }
}

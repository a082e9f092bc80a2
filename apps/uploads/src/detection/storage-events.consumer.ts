import { STORAGE_EVENTS_SUBJECT, Streams } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { InvalidMessageError, MessagingRuntime } from '@cp/messaging';
import { ObjectStorage, objectKeyOf, StorageNotification } from '@cp/storage';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ReceiveUploadUseCase } from '../slots/receive-upload.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { StorageNotificationDto } from './storage-notification.dto';

/**
 * Object-created notifications (MinIO's bucket notification, or the local bridge in the same shape) mark
 * upload slots as uploaded, or refuse and delete an object over its order's input limit or one that came for a
 * failed slot (`ReceiveUploadUseCase`). Objects that belong to no slot are ignored.
 */
@Injectable()
export class StorageEventsConsumer implements OnModuleInit {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly slots: UploadSlotsRepository,
    private readonly messaging: MessagingRuntime,
    private readonly receive: ReceiveUploadUseCase,
    private readonly storage: ObjectStorage,
  ) {}

  onModuleInit(): void {
    this.messaging.register({
      durable: 'uploads-storage-events',
      stream: Streams.storage.name,
      filterSubject: STORAGE_EVENTS_SUBJECT,
      payload: StorageNotificationDto,
      parkOnlyBecause: 'an upload not detected leaves its order pending, which the upload window fails and refunds; a replay records it',
      concurrency: 4,
      decode: (raw, message) => {
        const notification = raw as Partial<StorageNotification> | null;
        if (!notification || !Array.isArray(notification.Records)) {
          throw new InvalidMessageError('not a storage notification');
        }
        const objects = notification.Records.filter((record) => String(record.eventName).includes('ObjectCreated')).map((record) => ({
          bucket: record.s3.bucket.name,
          key: objectKeyOf(record),
          size: record.s3.object.size,
        }));
        return { eventId: `storage:${message.info.stream}:${message.seq}`, data: { objects } };
      },
      handle: async (notification) => {
        for (const object of notification.objects) {
          const received = await this.transactions.run(async (tx) => {
            const slot = await this.slots.findByObject(tx, object.bucket, object.key);
            return slot ? this.receive.execute(tx, slot.fileId, object.size ?? (await this.sizeOf(object.bucket, object.key))) : null;
          });
          // After the commit, so the slot is failed before its object goes; a failed delete is retried with the
          // notification, which then finds the slot failed and deletes again.
          if (received) {
            await this.receive.discard(received);
          }
        }
      },
    });
  }

  /** A record without a size (MinIO always sends one): the size is read from storage so no limit is skipped. */
  private async sizeOf(bucket: string, key: string): Promise<number> {
    return (await this.storage.stat(bucket, key))?.size ?? 0;
  }
}

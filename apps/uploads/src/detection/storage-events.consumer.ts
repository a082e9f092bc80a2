import { STORAGE_EVENTS_SUBJECT, Streams } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { InvalidMessageError, MessagingRuntime } from '@cp/messaging';
import { objectKeyOf, StorageNotification } from '@cp/storage';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { MarkUploadedUseCase } from '../slots/mark-uploaded.use-case';
import { UploadSlotsRepository } from '../slots/upload-slots.repository';
import { StorageNotificationDto } from './storage-notification.dto';

/**
 * Object-created notifications (MinIO's bucket notification, or the local bridge in the same shape) mark
 * upload slots as uploaded. Objects that belong to no waiting slot are ignored.
 */
@Injectable()
export class StorageEventsConsumer implements OnModuleInit {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly slots: UploadSlotsRepository,
    private readonly messaging: MessagingRuntime,
    private readonly markUploaded: MarkUploadedUseCase,
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
          await this.transactions.run(async (tx) => {
            const slot = await this.slots.findByObject(tx, object.bucket, object.key);
            if (slot) {
              await this.markUploaded.execute(tx, slot.fileId, object.size ?? 0);
            }
          });
        }
      },
    });
  }
}

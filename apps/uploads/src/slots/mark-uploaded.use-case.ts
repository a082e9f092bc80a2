import { EventSubjects, FileUploadedEvent } from '@cp/contracts';
import { OutboxWriter } from '@cp/messaging';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { UploadSlotEntity } from './upload-slot.entity';

/** A slot's file has arrived (storage notification, reconciliation, URL fetch or test sink): tell orders, once. */
@Injectable()
export class MarkUploadedUseCase {
  constructor(private readonly outbox: OutboxWriter) {}

  /** Returns false when the slot was not waiting (already uploaded, failed, or unknown). */
  async execute(manager: EntityManager, fileId: string, size: number): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(UploadSlotEntity)
      .set({ status: 'uploaded', size: String(size) })
      .where('file_id = :fileId AND status IN (:...waiting)', { fileId, waiting: ['awaiting', 'fetching'] })
      .returning(['orderId'])
      .execute();
    const rows = result.raw as Array<{ order_id: string }>;
    if (rows.length === 0) {
      return false;
    }
    const event: FileUploadedEvent = { orderId: String(rows[0].order_id), fileId, size };
    await this.outbox.add(manager, EventSubjects.fileUploaded, event);
    return true;
  }
}

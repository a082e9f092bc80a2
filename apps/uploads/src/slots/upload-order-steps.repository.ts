import { OrderTimelineStep } from '@cp/contracts';
import { OrderStepsSource } from '@cp/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UploadSlotEntity } from './upload-slot.entity';

/** The order timeline's upload steps: each file's slot registered, then uploaded, fetched or failed. */
@Injectable()
export class UploadOrderStepsRepository implements OrderStepsSource {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async stepsOf(orderId: string): Promise<OrderTimelineStep[]> {
    const slots = await this.dataSource.getRepository(UploadSlotEntity).find({ where: { orderId }, order: { fileId: 'ASC' } });
    return slots.flatMap((slot) => {
      const registered: OrderTimelineStep = {
        at: slot.createdAt.toISOString(),
        service: 'uploads',
        step: `file ${slot.fileId} slot registered`,
        detail: slot.sourceUrl ? 'fetched from originalFileUrl' : 'waiting for the upload',
      };
      if (slot.status === 'awaiting' || slot.status === 'fetching') {
        return [registered];
      }
      const done: OrderTimelineStep = {
        at: slot.updatedAt.toISOString(),
        service: 'uploads',
        step: `file ${slot.fileId} ${slot.status}`,
        ...(slot.failureReason ? { detail: slot.failureReason } : slot.size ? { detail: `${slot.size} bytes` } : {}),
      };
      return [registered, done];
    });
  }
}

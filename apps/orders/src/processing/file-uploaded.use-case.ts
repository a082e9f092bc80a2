import { Clock } from '@cp/clock';
import { FileUploadedEvent } from '@cp/contracts';
import { Transaction } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { OrdersRepository } from '../orders/orders.repository';
import { OrderProcessingService } from './order-processing.service';

/** A file arrived (upload detected or URL fetched); after the last one the order starts by itself, unless its type waits for a confirmation. */
@Injectable()
export class FileUploadedUseCase {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly processing: OrderProcessingService,
    private readonly clock: Clock,
  ) {}

  async execute(tx: Transaction, event: FileUploadedEvent): Promise<void> {
    const order = await this.orders.lock(tx, event.orderId);
    if (!order) {
      return;
    }
    const now = this.clock.now();
    const events = order.fileUploaded(event.fileId, event.size, now);
    const starts = order.allFilesUploaded() && this.processing.startsOnLastFile(order);
    await this.orders.save(tx, order, starts ? [...events, ...this.processing.start(order, now)] : events);
  }
}

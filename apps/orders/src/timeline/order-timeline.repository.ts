import { OrderTimelineStep } from '@cp/contracts';
import { Transaction, TransactionalRepository } from '@cp/database';
import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { CreditLedgerEntryEntity } from '../credits/credit-ledger-entry.entity';
import { OrderFileEntity } from '../orders/order-file.entity';
import { OrderOutputEntity } from '../orders/order-output.entity';
import { OrderEntity } from '../orders/order.entity';

/**
 * The order timeline's steps the orders service itself recorded: creation, the credit movements, each file and
 * output as it stands, and the order's last transition. null when there is no such order. Never a watermark
 * text or a URL's query (the timeline is for operators, but a recipient's name is not theirs to read).
 */
@Injectable()
export class OrderTimelineRepository extends TransactionalRepository {
  async stepsOf(tx: Transaction, orderId: string): Promise<OrderTimelineStep[] | null> {
    const order = await this.db(tx).findOneBy(OrderEntity, { id: orderId });
    if (!order) {
      return null;
    }
    const [files, outputs, ledger] = await Promise.all([
      this.db(tx).find(OrderFileEntity, { where: { orderId }, order: { id: 'ASC' } }),
      this.db(tx).find(OrderOutputEntity, { where: { orderId }, order: { fileId: 'ASC' } }),
      this.db(tx).find(CreditLedgerEntryEntity, { where: { reference: In([`charge:${orderId}`, `restore:${orderId}`]) }, order: { createdAt: 'ASC' } }),
    ]);
    const outputsByStatus = new Map<string, number>();
    for (const output of outputs) {
      const key = output.failureCode ? `${output.status} ${output.failureCode}` : output.status;
      outputsByStatus.set(key, (outputsByStatus.get(key) ?? 0) + 1);
    }
    const last = [order.failureCode, outputs.length > 0 ? `outputs: ${[...outputsByStatus].map(([status, count]) => `${count} ${status}`).join(', ')}` : null]
      .filter((part) => part !== null)
      .join('; ');
    // The outputs have no times of their own: they are told with the order's last change (an output's progress is one).
    const steps: OrderTimelineStep[] = [
      {
        at: order.createdAt.toISOString(),
        service: 'orders',
        step: `order created (${order.type}, ${order.mode} key, API ${order.apiVersion}), ${order.creditsCharged} credit(s)`,
        detail: files.map((file) => `file ${file.id} ${file.fileName} (${file.role}): ${file.status}`).join('; '),
      },
      ...ledger.map((entry) => ({ at: entry.createdAt.toISOString(), service: 'orders', step: `credits ${entry.amount > 0 ? '+' : ''}${entry.amount}`, detail: entry.reference })),
      {
        at: order.updatedAt.toISOString(),
        service: 'orders',
        step: `order ${order.status}${order.processingDelayed ? ' (processingDelayed)' : ''} (last transition)`,
        ...(last ? { detail: last } : {}),
      },
    ];
    return steps;
  }
}

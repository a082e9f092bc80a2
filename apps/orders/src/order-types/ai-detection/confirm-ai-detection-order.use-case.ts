import { Clock } from '@cp/clock';
import { AiDetectionConfirmView, ConfirmAiDetectionOrderCommand, digitsFitInt64, DomainException, ErrorCode } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { contextFromTraceparent, inSpan, orderAttributes, trace } from '@cp/tracing';
import { Injectable } from '@nestjs/common';
import { IdempotencyRepository } from '../../orders/idempotency.repository';
import { requestHash } from '../../orders/order-creation.service';
import { OrdersRepository } from '../../orders/orders.repository';
import { OrderProcessingService } from '../../processing/order-processing.service';
import { recordConfirmation } from './ai-detection-order.rules';

/**
 * Spec 4.15, `POST /api/v2/orders/ai-detection/confirm`: starts the analysis of a pending AI detection
 * order whose images are all in. Repeating the idempotency key returns the current state without
 * reprocessing (another body with it: 409); an unknown or foreign order is RESOURCE_NOT_FOUND. A confirm
 * before every image is in is recorded (the answer says `pending`) and the analysis starts with the last one.
 */
@Injectable()
export class ConfirmAiDetectionOrderUseCase {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly orders: OrdersRepository,
    private readonly idempotency: IdempotencyRepository,
    private readonly processing: OrderProcessingService,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes the analysis jobs in the order's own trace (its creation's), with a link to this request's span: the
   * order keeps one trace from creation to webhook (issue 33). Only when tracing is on (one lookup).
   */
  private async continuingOrderTrace(tx: Transaction, orderId: string, work: () => Promise<void>): Promise<void> {
    const request = trace.getActiveSpan();
    const traceparent = request?.isRecording() ? await this.orders.traceparentOf(tx, orderId) : null;
    if (!request || !traceparent) {
      await work();
      return;
    }
    await inSpan('order confirmed', { parent: contextFromTraceparent(traceparent), links: [{ context: request.spanContext() }], attributes: orderAttributes({ orderId, orderType: 'aiDetection' }) }, work);
  }

  execute({ caller, request }: ConfirmAiDetectionOrderCommand): Promise<AiDetectionConfirmView> {
    const scope = { accountId: caller.accountId, mode: caller.mode, operation: 'ai-detection-confirm', idempotencyKey: request.idempotencyKey };
    const hash = requestHash(request);
    if (!digitsFitInt64(request.orderId)) {
      // Of the pattern but beyond a bigint: no order has it, and PostgreSQL would refuse the comparison (a 500).
      return Promise.reject(new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `order id ${request.orderId} exceeds 64 bits`));
    }
    return this.transactions.run(async (tx) => {
      await this.idempotency.lockScope(tx, scope);
      const existing = await this.idempotency.find(tx, scope);
      if (existing && existing.requestHash !== hash) {
        throw new DomainException(ErrorCode.WATERMARK_V2_CONFLICT, 'idempotency key reused with another body');
      }
      const order = await this.orders.lock(tx, request.orderId);
      if (!order || order.state.accountId !== caller.accountId || order.state.mode !== caller.mode || order.state.type !== 'aiDetection') {
        throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `no AI detection order ${request.orderId} for the caller`);
      }
      if (!existing) {
        const now = this.clock.now();
        if (order.isExpired(now)) {
          throw new DomainException(ErrorCode.ORDER_EXPIRED);
        }
        if (order.status === 'pending' && order.allFilesUploaded()) {
          await this.continuingOrderTrace(tx, order.id, () => this.orders.save(tx, order, this.processing.start(order, now)));
        } else if (order.status === 'pending') {
          // Uploads still arriving (storage notifications are asynchronous): start with the last one.
          recordConfirmation(order, now);
          await this.orders.save(tx, order, []);
        }
        await this.idempotency.insert(tx, scope, hash, order.id);
      }
      return { orderId: order.id, status: order.status };
    });
  }
}

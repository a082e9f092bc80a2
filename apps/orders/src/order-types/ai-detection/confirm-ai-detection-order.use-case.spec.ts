// The confirm's orderId beyond a 64-bit integer (of the spec's pattern) names no order: RESOURCE_NOT_FOUND before
// any database work, never the 500 PostgreSQL's bigint comparison would make of it.
import { ManualClock } from '@cp/clock';
import { ConfirmAiDetectionOrderCommand, DomainException, ErrorCode } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { IdempotencyRepository } from '../../orders/idempotency.repository';
import { OrdersRepository } from '../../orders/orders.repository';
import { OrderProcessingService } from '../../processing/order-processing.service';
import { ConfirmAiDetectionOrderUseCase } from './confirm-ai-detection-order.use-case';

describe('ConfirmAiDetectionOrderUseCase', () => {
  it.each(['99999999999999999999', '9223372036854775808'])('orderId %s is RESOURCE_NOT_FOUND without a transaction', async (orderId) => {
    const run = jest.fn();
    const useCase = new ConfirmAiDetectionOrderUseCase(
      { run } as unknown as TransactionRepository,
      {} as OrdersRepository,
      {} as IdempotencyRepository,
      {} as OrderProcessingService,
      new ManualClock(new Date('2026-11-25T00:00:00.000Z')),
    );
    const command: ConfirmAiDetectionOrderCommand = { caller: { accountId: '1', mode: 'live' }, request: { idempotencyKey: 'k', orderId } };
    const failure: unknown = await useCase.execute(command).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DomainException);
    expect((failure as DomainException).code).toBe(ErrorCode.RESOURCE_NOT_FOUND);
    expect(run).not.toHaveBeenCalled();
  });
});

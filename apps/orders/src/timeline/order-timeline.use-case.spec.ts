// Gathering without a database or NATS: the steps of every service merged in time order, a service that does
// not answer named instead of failing the timeline, an unknown order refused with its code.
import { DomainException, ErrorCode, OrderStepsView, OrderTimelineQuery, OrderTimelineStep, RpcContract } from '@cp/contracts';
import { Transaction, TransactionRepository } from '@cp/database';
import { JobAttemptsRepository, RpcClient, RpcUnavailableError } from '@cp/messaging';
import { OrderTimelineRepository } from './order-timeline.repository';
import { OrderTimelineUseCase } from './order-timeline.use-case';

const step = (at: string, service: string, text: string): OrderTimelineStep => ({ at: `2026-11-26T01:00:${at}.000Z`, service, step: text });

function useCase(own: OrderTimelineStep[] | null, answers: Record<string, OrderTimelineStep[] | 'silent'>): OrderTimelineUseCase {
  const transactions = { statementByStatement: <T>(work: (tx: Transaction) => Promise<T>) => work({} as Transaction) } as unknown as TransactionRepository;
  const timeline = { stepsOf: async () => own } as unknown as OrderTimelineRepository;
  const attempts = { stepsOf: async (_orderId: string, service: string) => [step('05', service, 'orders-file-uploaded attempt 1: ok')] } as unknown as JobAttemptsRepository;
  const rpc = {
    request: async (contract: RpcContract<OrderTimelineQuery, OrderStepsView>): Promise<OrderStepsView> => {
      const answer = answers[contract.pattern];
      if (answer === undefined || answer === 'silent') {
        throw new RpcUnavailableError(contract.pattern);
      }
      return { steps: answer };
    },
  } as unknown as RpcClient;
  return new OrderTimelineUseCase(transactions, timeline, attempts, rpc);
}

describe('OrderTimelineUseCase', () => {
  it("merges the orders service's steps, its consumers' attempts and every other service's answer in time order", async () => {
    const view = await useCase([step('00', 'orders', 'order created'), step('09', 'orders', 'order complete')], {
      'uploads.order-steps': [step('03', 'uploads', 'file 1-1 uploaded')],
      'watermark.order-steps': [step('07', 'watermark-processor', 'watermark-embed attempt 1: ok')],
      'aidetect.order-steps': [],
      'reports.order-steps': [],
      'webhooks.order-steps': [step('10', 'webhooks', 'webhook order.completed: DELIVERED after 2 attempts')],
    }).execute({ orderId: '42' });
    expect(view.unavailable).toEqual([]);
    expect(view.steps.map((entry) => `${entry.service}: ${entry.step}`)).toEqual([
      'orders: order created',
      'uploads: file 1-1 uploaded',
      'orders: orders-file-uploaded attempt 1: ok',
      'watermark-processor: watermark-embed attempt 1: ok',
      'orders: order complete',
      'webhooks: webhook order.completed: DELIVERED after 2 attempts',
    ]);
  });

  it('names the services that did not answer and shows the rest', async () => {
    const view = await useCase([step('00', 'orders', 'order created')], {
      'uploads.order-steps': [step('03', 'uploads', 'file 1-1 uploaded')],
      'watermark.order-steps': 'silent',
      'reports.order-steps': [],
      'webhooks.order-steps': 'silent',
    }).execute({ orderId: '42' });
    expect(view.unavailable).toEqual(['ai-detector', 'watermark-processor', 'webhooks']);
    expect(view.steps.map((entry) => entry.service)).toEqual(['orders', 'uploads', 'orders']);
  });

  it('refuses an unknown order, and an id beyond a 64-bit integer, with RESOURCE_NOT_FOUND', async () => {
    for (const orderId of ['7', '99999999999999999999']) {
      const refused = useCase(null, {}).execute({ orderId });
      await expect(refused).rejects.toBeInstanceOf(DomainException);
      await expect(refused).rejects.toMatchObject({ code: ErrorCode.RESOURCE_NOT_FOUND });
    }
  });
});

import { DomainException, ErrorCode, OrderStepsView, OrderTimelineQuery, OrderTimelineStep, OrderTimelineView, RpcContract, Rpcs } from '@cp/contracts';
import { TransactionRepository } from '@cp/database';
import { JobAttemptsRepository, RpcClient } from '@cp/messaging';
import { Injectable, Logger } from '@nestjs/common';
import { OrderTimelineRepository } from './order-timeline.repository';

/** The services asked for their steps of an order, each through its own RPC (never its tables). */
const STEP_SOURCES: ReadonlyArray<[string, RpcContract<OrderTimelineQuery, OrderStepsView>]> = [
  ['uploads', Rpcs.uploadsOrderSteps],
  ['watermark-processor', Rpcs.watermarkOrderSteps],
  ['ai-detector', Rpcs.aidetectOrderSteps],
  ['reports', Rpcs.reportsOrderSteps],
  ['webhooks', Rpcs.webhooksOrderSteps],
];

const MAX_ORDER_ID = 2n ** 63n - 1n;

/** How long each service gets to answer; one that does not is listed as unavailable, the rest is shown. */
const STEPS_TIMEOUT_MS = 5000;

/**
 * An order's timeline for operators (issue 33): the orders service's own steps and its consumers' attempts, and
 * every other service's steps asked over request/reply, in time order. Unknown order: RESOURCE_NOT_FOUND.
 */
@Injectable()
export class OrderTimelineUseCase {
  private readonly logger = new Logger(OrderTimelineUseCase.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly timeline: OrderTimelineRepository,
    private readonly attempts: JobAttemptsRepository,
    private readonly rpc: RpcClient,
  ) {}

  async execute(query: OrderTimelineQuery): Promise<OrderTimelineView> {
    const { orderId } = query;
    // Beyond a signed 64-bit integer no order can have the id (and PostgreSQL would refuse the comparison).
    const own = BigInt(orderId) > MAX_ORDER_ID ? null : await this.transactions.statementByStatement((tx) => this.timeline.stepsOf(tx, orderId));
    if (own === null) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const unavailable: string[] = [];
    const remote = await Promise.all(
      STEP_SOURCES.map(async ([service, contract]): Promise<OrderTimelineStep[]> => {
        try {
          return (await this.rpc.request(contract, { orderId }, STEPS_TIMEOUT_MS)).steps;
        } catch (error) {
          this.logger.warn({ err: error, service, orderId }, 'a service did not give its steps of the order');
          unavailable.push(service);
          return [];
        }
      }),
    );
    const steps = [...own, ...(await this.attempts.stepsOf(orderId, 'orders')), ...remote.flat()];
    // Stable: steps of one instant keep the order the services told them in.
    steps.sort((a, b) => a.at.localeCompare(b.at));
    return { orderId, steps, unavailable: unavailable.sort() };
  }
}

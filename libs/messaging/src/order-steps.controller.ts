import { OrderStepsView, OrderTimelineQuery, OrderTimelineStep, RpcContract } from '@cp/contracts';
import { Controller, Inject, Optional, Type } from '@nestjs/common';
import { JobAttemptsRepository } from './job-attempts.repository';
import { RpcHandler, RpcHandlers } from './rpc-server';

/** A service's own steps of an order, from its own tables (upload slots, webhook deliveries, reports). */
export interface OrderStepsSource {
  stepsOf(orderId: string): Promise<OrderTimelineStep[]>;
}

/** Provide a service's `OrderStepsSource` under this token; without one, its steps are its job attempts only. */
export const ORDER_STEPS_SOURCE = Symbol('ORDER_STEPS_SOURCE');

/**
 * The controller of a service's `<service>.order-steps` (the order timeline, issue 33): the attempts of its
 * consumers at messages about the order (`job_attempt`), and its own steps when it provides a source. One
 * factory rather than a copy of the same controller in every service.
 */
export function orderStepsController(contract: RpcContract<OrderTimelineQuery, OrderStepsView>, service: string): Type<unknown> {
  @RpcHandlers()
  @Controller()
  class OrderStepsController {
    constructor(
      private readonly attempts: JobAttemptsRepository,
      @Optional() @Inject(ORDER_STEPS_SOURCE) private readonly own?: OrderStepsSource,
    ) {}

    @RpcHandler(contract)
    async steps(query: OrderTimelineQuery): Promise<OrderStepsView> {
      const [attempts, own] = await Promise.all([this.attempts.stepsOf(query.orderId, service), this.own?.stepsOf(query.orderId) ?? []]);
      return { steps: [...own, ...attempts] };
    }
  }
  return OrderStepsController;
}

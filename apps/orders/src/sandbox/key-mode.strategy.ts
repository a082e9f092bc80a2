import { KeyMode, OutboxMessage } from '@cp/contracts';
import { Order } from '../domain/order';
import { OrderTypeDefinition, ProcessingContext } from '../order-types/order-type-definition';

/**
 * Everything test keys (sandbox) do differently, in one place per key mode: processing (simulated results
 * at once instead of jobs). Chosen by `KeyModes.of(order)`.
 */
export interface KeyModeStrategy {
  readonly mode: KeyMode;
  startProcessing(definition: OrderTypeDefinition, order: Order, context: ProcessingContext): OutboxMessage[];
}

export class LiveMode implements KeyModeStrategy {
  readonly mode = 'live' as const;

  startProcessing(definition: OrderTypeDefinition, order: Order, context: ProcessingContext): OutboxMessage[] {
    return definition.startLive(order, context);
  }
}

export class SandboxMode implements KeyModeStrategy {
  readonly mode = 'test' as const;

  startProcessing(definition: OrderTypeDefinition, order: Order, context: ProcessingContext): OutboxMessage[] {
    return definition.startSandbox(order, context);
  }
}

import { OutboxMessage, sharedJob } from '@cp/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { Order } from '../domain/order';
import { ProcessingContext } from '../order-types/order-type-definition';
import { OrderTypeRegistry } from '../order-types/order-type.registry';
import { ORDERS_CONFIG, OrdersConfig } from '../orders.config';
import { KeyModesService } from '../sandbox/key-modes.service';

/** Starting the processing of an order, the same for every type: the aggregate's transition, then the type's jobs (or simulated results for test keys). */
@Injectable()
export class OrderProcessingService {
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly types: OrderTypeRegistry,
    private readonly modes: KeyModesService,
  ) {}

  context(now: Date): ProcessingContext {
    const { buckets } = this.config.storage;
    return { now, buckets: { inputs: buckets.inputs, outputs: buckets.outputs } };
  }

  /** The last file of `order` arrived: does that start it (or does it wait for the client's confirmation)? */
  startsOnLastFile(order: Order): boolean {
    return this.types.of(order).startsOnLastFile(order);
  }

  /** `pending` → `inProgress` (or `failed` for a v2 order past the retirement) and the type's first messages. */
  start(order: Order, now: Date): OutboxMessage[] {
    const events = order.startProcessing(now);
    if (order.status !== 'inProgress') {
      return events;
    }
    return this.shared(order, [...events, ...this.modes.of(order).startProcessing(this.types.of(order), order, this.context(now))]);
  }

  /**
   * Every job among `messages` held to its account's share of its queue (`OutboxShare`): at most
   * `QUEUED_JOBS_PER_ACCOUNT` of the account's jobs of one queue are sent and unfinished at once, so one account's
   * backlog never stands in front of every other account's work. A job's unit is what its results name.
   */
  shared(order: Order, messages: OutboxMessage[]): OutboxMessage[] {
    return messages.map((item) =>
      item.contract.kind === 'job'
        ? sharedJob(item.contract, item.payload, { accountId: order.state.accountId, order: order.id, limit: this.config.queuedJobsPerAccount })
        : item,
    );
  }
}

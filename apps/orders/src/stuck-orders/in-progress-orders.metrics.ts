import { Clock } from '@cp/clock';
import { TransactionRepository } from '@cp/database';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { InProgressOrdersRepository } from './in-progress-orders.repository';

type Read = () => Promise<Figures>;

type Figures = { inProgress: number; oldestUnchangedAgeSeconds: number };

let read: Read | undefined;
let inFlight: Promise<Figures> | undefined;
const logger = new Logger('InProgressOrdersMetrics');

/**
 * Sets one gauge from the scrape's one statement: prom-client runs both gauges' `collect` at once, so they
 * share the read in flight. Nothing runs between scrapes.
 */
async function collect(gauge: Gauge, pick: (figures: Figures) => number): Promise<void> {
  const current = read;
  if (!current) {
    return;
  }
  try {
    inFlight ??= current().finally(() => {
      inFlight = undefined;
    });
    gauge.set(pick(await inFlight));
  } catch (error) {
    logger.warn({ err: error }, 'could not read the in-progress orders');
  }
}

const inProgressGauge: Gauge = new Gauge({
  name: 'orders_in_progress',
  help: 'Orders in status inProgress',
  collect: () => collect(inProgressGauge, (figures) => figures.inProgress),
});

const oldestUnchangedGauge: Gauge = new Gauge({
  name: 'orders_in_progress_oldest_unchanged_age_seconds',
  help: 'Time since the least recently changed inProgress order made any progress (0 when none): stuck orders long before STUCK_ORDER_MAX_AGE_MS fails them',
  collect: () => collect(oldestUnchangedGauge, (figures) => figures.oldestUnchangedAgeSeconds),
});

/**
 * Stuck orders as metrics: the stuck-order sweep fails an order only after STUCK_ORDER_MAX_AGE_MS (6 h); the
 * alert on this age (chart, `ContentProtectionStuckOrders`) calls someone long before. Ages use the service's
 * Clock, like the sweep.
 */
@Injectable()
export class InProgressOrdersMetrics implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly orders: InProgressOrdersRepository,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    read = async () => {
      const summary = await this.transactions.statementByStatement((tx) => this.orders.summary(tx));
      const since = summary.oldestUnchangedSince;
      const oldestUnchangedAgeSeconds = since ? Math.max(0, (this.clock.now().getTime() - since.getTime()) / 1000) : 0;
      return { inProgress: summary.inProgress, oldestUnchangedAgeSeconds };
    };
  }

  onApplicationShutdown(): void {
    read = undefined;
  }
}

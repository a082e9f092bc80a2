import { OutboxRelay } from '@cp/messaging';
import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from './periodic-task';

/** Runs the outbox relay in the services' periodic loop: a pass at start, then every OUTBOX_POLL_INTERVAL_MS. */
@Injectable()
export class OutboxRelayLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(relay: OutboxRelay) {
    this.task = new PeriodicTask('outbox relay', relay.options.pollIntervalMs, (isStopping) => relay.pass(isStopping), { runAtStart: true });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** New events were committed: relay them now rather than at the next poll. */
  wake(): void {
    this.task.wake();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}

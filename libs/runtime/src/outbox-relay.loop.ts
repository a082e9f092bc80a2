import { OutboxCommitSignal, OutboxNotificationListener, OutboxRelay } from '@cp/messaging';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicTask } from './periodic-task';

/** First pause before a failed relay pass is tried again; it doubles up to the poll interval. */
const FIRST_RETRY_MS = 250;

/**
 * Runs the outbox relay in the services' periodic loop, relaying on commit (issue 32): a pass at start, a pass
 * as soon as a transaction of this process that wrote outbox rows commits (`OutboxCommitSignal`), a pass when
 * PostgreSQL notifies that another replica's rows committed (LISTEN), and a pass every OUTBOX_POLL_INTERVAL_MS
 * as the safety net for a notification missed while the listening connection was down. Wakes that arrive during
 * a pass fold into one more pass (`PeriodicTask`), so a burst of commits costs a pass or two, not one each. The
 * NOTIFY of this process's own commits is no wake: the commit signal has woken the relay already (one pass per
 * commit, not two).
 */
@Injectable()
export class OutboxRelayLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelayLoop.name);
  private readonly task: PeriodicTask;
  private listener?: OutboxNotificationListener;
  private unsubscribe?: () => void;
  private retryTimer?: NodeJS.Timeout;
  private retryDelayMs = FIRST_RETRY_MS;

  constructor(
    private readonly relay: OutboxRelay,
    private readonly commits: OutboxCommitSignal,
  ) {
    this.task = new PeriodicTask('outbox relay', relay.options.pollIntervalMs, (isStopping) => this.pass(isStopping), { runAtStart: true });
  }

  /**
   * A failed pass (JetStream electing a leader, the database restarting) is tried again after 250 ms, then
   * 500 ms, 1 s…, never later than the poll: events waiting in the outbox leave as soon as the broker answers
   * again, instead of at the next poll or the next commit (issue 35: time until orders move after a node loss).
   */
  private async pass(isStopping: () => boolean): Promise<void> {
    if (await this.relay.pass(isStopping)) {
      this.retryDelayMs = FIRST_RETRY_MS;
      return;
    }
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.task.wake(), this.retryDelayMs);
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.relay.options.pollIntervalMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.task.start();
    this.unsubscribe = this.commits.subscribe(() => this.task.wake());
    // Never fails the start: without notifications the poll still relays, only later.
    this.listener = await this.relay.listenForCommits(() => this.task.wake(), this.commits).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'outbox notifications unavailable; relaying on the poll only');
      return undefined;
    });
  }

  /** New events were committed: relay them now rather than at the next poll. */
  wake(): void {
    this.task.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.unsubscribe?.();
    await this.listener?.close();
    await this.task.stop();
  }
}

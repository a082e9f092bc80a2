import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';

/** The NOTIFY channel of a schema's outbox: the trigger of migration `OutboxNotifyTrigger` sends on it. */
export function outboxChannel(schema: string): string {
  return `cp_outbox.${schema}`;
}

/** First pause before connecting again after the listening connection failed; it doubles up to the maximum. */
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 15_000;

/**
 * Holds one PostgreSQL connection of its own (not one of the pool's, which are lent out per statement) that
 * LISTENs on the outbox channel of the service's schema, and calls `onNotify` for every notification: rows were
 * committed, by this replica or another. When the connection breaks it connects again with growing pauses and
 * calls `onNotify` once connected (rows may have committed while nobody listened); the relay's safety poll
 * covers the time in between. A notification only wakes a relay pass, so a duplicate or a stray one costs one
 * empty claim query, and a lost one at most one poll interval. `isAlreadyKnown` skips the notifications whose
 * sender (the backend's pid, carried by every notification) has told the relay in another way: this process's
 * own commits, which its `OutboxCommitSignal` announced at the COMMIT (issue 32: one relay pass per commit, not two).
 */
export class OutboxNotificationListener {
  private readonly logger = new Logger(OutboxNotificationListener.name);
  private client?: Client;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectMs = RECONNECT_MIN_MS;

  constructor(
    private readonly config: ClientConfig,
    private readonly channel: string,
    private readonly onNotify: () => void,
    private readonly isAlreadyKnown: (senderProcessId: number) => boolean = () => false,
  ) {}

  /** Connects and listens; a first failure is logged and retried in the background (the poll still runs). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Whether the connection is up and listening (for tests and readiness). */
  get listening(): boolean {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) {
      return;
    }
    const client = new Client(this.config);
    // Both fire when the connection breaks; only the first one for this client schedules the reconnect.
    let lost = false;
    const onLost = (error?: unknown): void => {
      if (lost) {
        return;
      }
      lost = true;
      if (this.client === client) {
        this.client = undefined;
      }
      client.removeAllListeners('notification');
      client.end().catch(() => undefined);
      if (!this.closed) {
        this.logger.warn({ err: error }, `outbox notifications on ${this.channel} lost; reconnecting in ${this.reconnectMs} ms`);
        this.scheduleReconnect();
      }
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === this.channel && !this.isAlreadyKnown(message.processId)) {
        this.onNotify();
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdentifier(this.channel)}`);
    } catch (error) {
      onLost(error);
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.reconnectMs = RECONNECT_MIN_MS;
    // Rows committed while nobody listened (before the first connection, during an outage) are relayed now.
    this.onNotify();
  }

  private scheduleReconnect(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectMs);
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MAX_MS);
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

import { ALL_STREAMS, StreamDefinition } from '@cp/contracts';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { connect, JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { checkStreamReplicas, ensureStreams, existingStreamPeers, retryDuringElection } from './jetstream-setup';

/**
 * Reconnect options for every NATS connection of a service (JetStream, RPC server, RPC client). The nats
 * client's defaults give up after 10 attempts 2 s apart and then close the connection for good, so a NATS
 * restart that outlasts them left that connection (e.g. one service's RPC subscriptions) dead until the
 * process restarted: retry forever instead, every half second.
 */
export const NATS_RECONNECT_OPTIONS = { maxReconnectAttempts: -1, reconnectTimeWait: 500 } as const;

/**
 * The servers of a NATS URL setting: one URL, or every node of a cluster comma-separated (NATS_URL). The client
 * takes them as a list, so it can connect, and reconnect, through any node that is up.
 */
export function natsServers(url: string): string[] {
  return url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '');
}

/** The hosts of a NATS URL setting, for messages: never a user, password or token a URL may carry. */
export function serverHosts(url: string): string {
  return natsServers(url)
    .map((server) => {
      try {
        return new URL(server).host;
      } catch {
        return 'an invalid URL';
      }
    })
    .join(', ');
}

export interface NatsOptions {
  /** One server or a comma-separated list of a cluster's nodes. */
  url: string;
  /** Connection name shown by the NATS server (the service name). */
  name: string;
  streams?: StreamDefinition[];
  /** Copies of each stream (NATS_STREAM_REPLICAS); default 1. */
  streamReplicas?: number;
  /** NATS_STREAM_MAX_MIB in bytes: each stream's `max_bytes` is its share of it (unbounded when absent). */
  streamMaxBytes?: number;
  /** How long stream set-up is retried while JetStream elects leaders; default JETSTREAM_SETUP_DEADLINE_MS. */
  setupDeadlineMs?: number;
}

/** JetStream API wait of one stream set-up attempt at start (retried during an election, within the set-up deadline). */
const SETUP_REQUEST_TIMEOUT_MS = 2000;

/** The service's JetStream connection: streams ensured at start, drained at shutdown. */
@Injectable()
export class NatsConnectionService implements OnApplicationShutdown {
  private readonly logger = new Logger(NatsConnectionService.name);
  private connection?: NatsConnection;
  private manager?: JetStreamManager;

  constructor(private readonly options: NatsOptions) {}

  async connect(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      // Named at start: `CONNECTION_REFUSED` alone does not say which dependency (runService logs it and exits 1).
      throw new Error(`NATS (connect to ${serverHosts(this.options.url)}, set up streams): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  private async open(): Promise<void> {
    this.connection = await connect({
      servers: natsServers(this.options.url),
      name: this.options.name,
      // nats.js otherwise builds an Error per request for its stack (every JetStream publish of the outbox relay);
      // a failed publish is retried by the relay, its async stack never read.
      noAsyncTraces: true,
      ...NATS_RECONNECT_OPTIONS,
    });
    const connection = this.connection;
    const streams = this.options.streams ?? ALL_STREAMS;
    const replicas = this.options.streamReplicas ?? 1;
    // A service starting while a node of the cluster is lost or starting meets a leader election (timeouts,
    // "temporarily unavailable") for a few seconds: set-up is retried within a deadline, then fails the start.
    await retryDuringElection(
      async () => {
        // A request lost with a dead meta leader is only answered by its timeout: 2 s, not the client's 5 s, so a
        // service restarted just after a node loss retries on the new leader sooner (issue 35: a restart of the
        // orders service with a node down spent 5 s on one such request).
        const manager = await connection.jetstreamManager({ timeout: SETUP_REQUEST_TIMEOUT_MS });
        if (connection.info && replicas > 1) {
          checkStreamReplicas(replicas, connection.info, await existingStreamPeers(manager, streams));
        }
        await ensureStreams(manager, streams, { replicas, maxBytes: this.options.streamMaxBytes });
      },
      { deadlineMs: this.options.setupDeadlineMs, onRetry: (error) => this.logger.warn({ err: error }, 'JetStream electing a leader; stream set-up retried') },
    );
    // The manager the services keep waits the client's usual 5 s: its callers (consumer set-up, metrics, replays)
    // are retried or not on an order's path. JetStream was just checked by the set-up: no second account request.
    this.manager = await connection.jetstreamManager({ checkAPI: false });
    this.logger.log(`connected to NATS at ${this.connection.getServer()}`);
  }

  get nc(): NatsConnection {
    if (!this.connection) {
      throw new Error('NATS is not connected yet');
    }
    return this.connection;
  }

  get js(): JetStreamClient {
    return this.nc.jetstream();
  }

  get jsm(): JetStreamManager {
    if (!this.manager) {
      throw new Error('NATS is not connected yet');
    }
    return this.manager;
  }

  /** Readiness: connected and the server answers a round trip. */
  async ping(): Promise<void> {
    if (!this.connection || this.connection.isClosed()) {
      throw new Error('NATS connection closed');
    }
    await this.connection.rtt();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.connection && !this.connection.isClosed()) {
      await this.connection.drain();
    }
  }
}

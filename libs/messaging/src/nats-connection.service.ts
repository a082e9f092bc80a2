import { ALL_STREAMS, StreamDefinition } from '@cp/contracts';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { connect, JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { ensureStreams } from './jetstream-setup';

export interface NatsOptions {
  url: string;
  /** Connection name shown by the NATS server (the service name). */
  name: string;
  streams?: StreamDefinition[];
}

/** The service's JetStream connection: streams ensured at start, drained at shutdown. */
@Injectable()
export class NatsConnectionService implements OnApplicationShutdown {
  private readonly logger = new Logger(NatsConnectionService.name);
  private connection?: NatsConnection;
  private manager?: JetStreamManager;

  constructor(private readonly options: NatsOptions) {}

  async connect(): Promise<void> {
    this.connection = await connect({
      servers: this.options.url,
      name: this.options.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
    this.manager = await this.connection.jetstreamManager();
    await ensureStreams(this.manager, this.options.streams ?? ALL_STREAMS);
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

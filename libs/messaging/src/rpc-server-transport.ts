import { ErrorCode, RpcErrorBody } from '@cp/contracts';
import { Logger } from '@nestjs/common';
import { NatsContext, NatsOptions, OutgoingResponse, ServerNats } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer';
import type { Msg, MsgHdrs, NatsConnection, Subscription, SubscriptionOptions } from 'nats';

/** Room kept for the reply's headers (a `traceparent` and the like) within the server's `max_payload`. */
const HEADER_ROOM_BYTES = 4096;

const logger = new Logger('RpcServer');

/**
 * Nest's NATS reply serializer, bounded: a reply that cannot fit in one NATS message (the server's `max_payload`,
 * 1 MiB by default) would fail to publish inside Nest's transport, and its caller would wait out its whole timeout
 * for a 503 that says nothing. It is answered `SERVER_INTERNAL_ERROR` at once instead, and logged with its size.
 * The views the services answer are bounded by their rules so this does not happen (e.g. `EMBED_TEXTS_MAX_BYTES`);
 * this is the guard for a view nobody measured.
 */
export class BoundedReplySerializer {
  private readonly records = new NatsRecordSerializer();

  constructor(private readonly maxPayload: () => number | undefined) {}

  serialize(packet: OutgoingResponse): { data: Uint8Array; headers?: MsgHdrs } {
    const record = this.records.serialize(packet) as { data: Uint8Array; headers?: MsgHdrs };
    const limit = this.maxPayload();
    if (limit === undefined || record.data.length <= limit - HEADER_ROOM_BYTES) {
      return record;
    }
    logger.error({ bytes: record.data.length, maxPayload: limit }, 'reply larger than a NATS message: answered SERVER_INTERNAL_ERROR');
    const refused: RpcErrorBody = { code: ErrorCode.SERVER_INTERNAL_ERROR };
    return this.records.serialize({ id: packet.id, err: refused, isDisposed: true }) as { data: Uint8Array; headers?: MsgHdrs };
  }
}

/**
 * Longest a closing server waits for the replies of the requests it already took. Their callers give up after
 * their own timeout (the gateway's `RPC_TIMEOUT_MS`, 15 s), so a handler still running past this is answered by nobody.
 */
export const RPC_CLOSE_WAIT_MS = 10_000;

/**
 * Nest's NATS server closes its connection at once on shutdown: a request in flight then had its reply dropped, and
 * its caller waited its whole timeout (15 s at the gateway) for a 503, on every rolling update of a service that
 * answers requests. This one stops taking requests first (its subscriptions drain: the queue group's other
 * members get the new ones), waits for the replies of the ones it took, at most `closeWaitMs`, then closes.
 */
export class DrainingRpcServer extends ServerNats {
  private readonly taken: Subscription[] = [];
  private unanswered = 0;
  private answeredAll?: () => void;

  constructor(
    options: Required<NatsOptions>['options'],
    private readonly closeWaitMs = RPC_CLOSE_WAIT_MS,
  ) {
    super(options);
  }

  /** Nest subscribes through the client's `subscribe` only: each subscription is kept, to drain it at close. */
  override bindEvents(client: NatsConnection): void {
    const recording: Pick<NatsConnection, 'subscribe'> = {
      subscribe: (subject: string, options?: SubscriptionOptions) => {
        const subscription = client.subscribe(subject, options);
        this.taken.push(subscription);
        return subscription;
      },
    };
    super.bindEvents(recording);
  }

  /**
   * One publisher per request taken: a request counts as unanswered until its last packet is sent (Nest marks it
   * `isDisposed`; the answer for a pattern nobody serves has `status: 'error'` and is the only one).
   */
  override getPublisher(message: Msg, id: string, context: NatsContext): (response: OutgoingResponse) => void {
    const publish = super.getPublisher(message, id, context) as (response: OutgoingResponse) => unknown;
    if (!message.reply) {
      return publish;
    }
    this.unanswered += 1;
    let open = true;
    return (response) => {
      try {
        publish(response);
      } catch (error) {
        // A reply after the close (a handler slower than the wait): its caller has given up or will get a 503.
        logger.warn({ err: error, subject: message.subject }, 'reply not sent: the RPC server is closed');
      } finally {
        if (open && (response.isDisposed === true || response.status === 'error')) {
          open = false;
          this.unanswered -= 1;
          if (this.unanswered === 0) {
            this.answeredAll?.();
          }
        }
      }
    };
  }

  override async close(): Promise<void> {
    await this.stopTaking();
    await super.close();
  }

  /** Stops taking requests and waits (at most `closeWaitMs`) for the replies of those taken, sent to the server. */
  async stopTaking(): Promise<void> {
    const connection = this.unwrapConnection();
    if (!connection || connection.isClosed()) {
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.closeWaitMs);
    });
    try {
      // drain: the server stops routing requests here; those already received still reach the handler.
      await Promise.race([Promise.allSettled(this.taken.splice(0).map((subscription) => subscription.drain())), bound]);
      await Promise.race([this.repliesSent(), bound]);
      // The replies are in the client's buffer: sent before the connection closes.
      await Promise.race([connection.flush().catch(() => undefined), bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Requests taken and not answered yet. */
  get inFlight(): number {
    return this.unanswered;
  }

  private repliesSent(): Promise<void> {
    if (this.unanswered === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.answeredAll = resolve;
    });
  }

  /** The connection's `max_payload`; undefined while not connected (before listen, after close). */
  maxPayload(): number | undefined {
    return this.unwrapConnection()?.info?.max_payload;
  }

  private unwrapConnection(): NatsConnection | undefined {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      // Not connected (never listened, or already closed).
      return undefined;
    }
  }
}

/** The services' NATS request/reply server: Nest's, with replies bounded by the connection's `max_payload`, drained at close. */
export function createRpcServer(options: Required<NatsOptions>['options'], closeWaitMs = RPC_CLOSE_WAIT_MS): DrainingRpcServer {
  let server: DrainingRpcServer | undefined = undefined;
  const serializer = new BoundedReplySerializer(() => server?.maxPayload());
  server = new DrainingRpcServer({ ...options, serializer }, closeWaitMs);
  return server;
}

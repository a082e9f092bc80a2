import { DomainException, ErrorCode, isErrorCode, RpcContract } from '@cp/contracts';
import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { injectTraceHeaders, inSpan, SpanAttributes, SpanKind } from '@cp/tracing';
import { connect, headers as natsHeaders, ErrorCode as NatsErrorCode, JSONCodec, MsgHdrs, NatsConnection } from 'nats';
import { NATS_RECONNECT_OPTIONS, natsServers } from './nats-connection.service';

export const RPC_CLIENT_OPTIONS = Symbol('RPC_CLIENT_OPTIONS');

export interface RpcClientOptions {
  natsUrl: string;
  /** Connection name shown by the NATS server. */
  name: string;
  timeoutMs: number;
}

/** What an `@RpcHandler` (a `@MessagePattern` of `@nestjs/microservices`) answers over NATS (one message for a single value). */
interface RpcReply {
  response?: unknown;
  err?: unknown;
}

/**
 * Commands and queries over NATS request/reply; errors come back as DomainException with the public code.
 * Speaks the wire format of the services' `@nestjs/microservices` NATS servers (`{ pattern, data, id }`, answered
 * `{ response | err, isDisposed, id }`) through the nats client's own request, which shares one wildcard inbox
 * subscription per connection: Nest's client subscribes and unsubscribes a fresh inbox for every request, two
 * more protocol messages and two more changes of the server's interest graph on the API's hot path (issue 19).
 */
/**
 * No replica answered (timeout, no responders, NATS connection down): a 503 for the API, and a transient
 * infrastructure failure for a consumer (it retries without using up the message's attempts).
 */
export class RpcUnavailableError extends DomainException {
  constructor(pattern: string) {
    super(ErrorCode.WATERMARK_V2_UNAVAILABLE, `${pattern} is unavailable`);
  }
}

/**
 * How long a request that nobody received ("no responders") is sent again, whatever the RPC: when a NATS node
 * dies, the services connected to it reconnect through another within about a second and subscribe again;
 * until then their patterns have no subscriber. Short, so a service that is really down is still answered 503
 * at once rather than after the whole timeout.
 */
export const RPC_NO_RESPONDERS_RETRY_MS = 2000;
/**
 * An idempotent RPC (`idempotent` in the catalog) is tried in attempts of 2 s, then twice as long each time, within
 * the caller's timeout: a request or its answer lost with a killed NATS node (the route it took is gone) is sent
 * again after 2 s instead of using the whole timeout up, and a slow handler still gets longer attempts after it.
 */
export const RPC_FIRST_ATTEMPT_MS = 2000;
const RPC_RETRY_PAUSE_MS = 100;

function natsCodeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** The active trace context as NATS headers (only built when tracing is on: no headers on the wire otherwise). */
function traceHeaders(): MsgHdrs {
  const headers = natsHeaders();
  injectTraceHeaders(headers);
  return headers;
}

@Injectable()
export class RpcClient implements OnApplicationShutdown {
  private readonly codec = JSONCodec<unknown>();
  private connection?: Promise<NatsConnection>;

  constructor(@Inject(RPC_CLIENT_OPTIONS) private readonly options: RpcClientOptions) {}

  /**
   * Sends a declared request (`Rpcs.*` of `@cp/contracts`): request and response types come from the declaration.
   * Within `timeoutMs`, a request nobody received is sent again for up to `RPC_NO_RESPONDERS_RETRY_MS`, and an
   * idempotent one whose answer did not come is sent again (attempts of 2 s, 4 s, 8 s…).
   */
  async request<TRequest extends object, TResponse>(
    contract: RpcContract<TRequest, TResponse>,
    payload: TRequest,
    timeoutMs: number = this.options.timeoutMs,
  ): Promise<TResponse> {
    const pattern = contract.pattern;
    // A client span, its context sent as `traceparent`: the server's span is its child (issue 33).
    const reply = await inSpan(`rpc ${pattern}`, { kind: SpanKind.CLIENT }, async (span) => {
      const answer = await this.exchange(contract, payload, timeoutMs, span.isRecording() ? traceHeaders() : undefined);
      const code = (answer.err as { code?: unknown } | null | undefined)?.code;
      if (isErrorCode(code)) {
        span.setAttribute(SpanAttributes.errorCode, code);
      }
      return answer;
    });
    if (reply.err !== undefined && reply.err !== null) {
      const { code, retryAfterSeconds } = reply.err as { code?: unknown; retryAfterSeconds?: unknown };
      if (isErrorCode(code)) {
        throw new DomainException(code, `${pattern} answered ${code}`, typeof retryAfterSeconds === 'number' && retryAfterSeconds > 0 ? Math.ceil(retryAfterSeconds) : undefined);
      }
      // Not one of ours (e.g. no handler for the pattern on the other side): a fault, kept out of responses.
      throw new Error(`${pattern} failed without a code`);
    }
    return reply.response as TResponse;
  }

  /** The raw reply, after the retries that are safe for this RPC; RpcUnavailableError when none came in time. */
  private async exchange<TRequest extends object>(contract: RpcContract<TRequest, unknown>, payload: TRequest, timeoutMs: number, headers?: MsgHdrs): Promise<RpcReply> {
    const pattern = contract.pattern;
    const started = Date.now();
    const deadline = started + timeoutMs;
    let attemptMs = contract.idempotent ? RPC_FIRST_ATTEMPT_MS : timeoutMs;
    for (;;) {
      const remaining = deadline - Date.now();
      try {
        const nc = await this.connected();
        const message = await nc.request(pattern, this.codec.encode({ pattern, data: payload, id: randomUUID() }), { timeout: Math.max(1, Math.min(attemptMs, remaining)), headers });
        return this.codec.decode(message.data) as RpcReply;
      } catch (error) {
        // No replica answering in time, nobody subscribed, or the NATS connection down (connecting, reconnecting,
        // closed): all retryable by the caller, so 503. Repeated here only when that cannot act twice.
        const code = natsCodeOf(error);
        const unheard = code === NatsErrorCode.NoResponders && Date.now() - started < RPC_NO_RESPONDERS_RETRY_MS;
        const lost = contract.idempotent === true && code === NatsErrorCode.Timeout;
        if (!(unheard || lost) || Date.now() + RPC_RETRY_PAUSE_MS >= deadline) {
          throw new RpcUnavailableError(pattern);
        }
        if (lost) {
          attemptMs *= 2;
        }
        await new Promise((resolve) => setTimeout(resolve, RPC_RETRY_PAUSE_MS));
      }
    }
  }

  /** One connection per process, made at the first request (as Nest's client did); a failed attempt is retried by the next request. */
  private connected(): Promise<NatsConnection> {
    if (!this.connection) {
      const attempt = connect({
        servers: natsServers(this.options.natsUrl),
        name: `${this.options.name}-rpc`,
        // The error of a failed request is mapped to a code below; its async stack trace (an Error per request) is never read.
        noAsyncTraces: true,
        ...NATS_RECONNECT_OPTIONS,
      });
      this.connection = attempt;
      void attempt.catch(() => {
        if (this.connection === attempt) {
          this.connection = undefined;
        }
      });
    }
    return this.connection;
  }

  async onApplicationShutdown(): Promise<void> {
    const pending = this.connection;
    this.connection = undefined;
    const nc = await pending?.catch(() => undefined);
    if (nc && !nc.isClosed()) {
      await nc.drain();
    }
  }
}

@Global()
@Module({})
export class RpcClientModule {
  static register(natsUrl: string, name: string, timeoutMs = 15_000): DynamicModule {
    const options: RpcClientOptions = { natsUrl, name, timeoutMs };
    return {
      module: RpcClientModule,
      providers: [RpcClient, { provide: RPC_CLIENT_OPTIONS, useValue: options }],
      exports: [RpcClient],
    };
  }
}

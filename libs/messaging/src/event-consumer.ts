import { asTransaction, Transaction } from '@cp/database';
import { EgressError } from '@cp/egress';
import { deadlineVariableOf, EventEnvelope, JOB_DEADLINE_MAX_MS, JOB_DEADLINE_MIN_MS, MessageContract, PARKED_SUBJECT_PREFIX, parseJobDeadlineMs } from '@cp/contracts';
import { Logger } from '@nestjs/common';
import { contextFromHeaders, inSpan, orderAttributes, recordSpanError, SpanKind } from '@cp/tracing';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AckPolicy, Consumer, ConsumerConfig, DeliverPolicy, headers as natsHeaders, JetStreamClient, JetStreamManager, JsMsg, MsgHdrs, nanos } from 'nats';
import { DataSource } from 'typeorm';
import { InboxRecordEntity } from './inbox-record.entity';
import { retryDuringElection } from './jetstream-setup';
import { JobAttemptsRecorder } from './job-attempts.recorder';
import { JobAttemptsRepository } from './job-attempts.repository';
import { messagingMetrics } from './messaging-metrics';
import { RpcUnavailableError } from './rpc-client';

/**
 * Ack wait of long jobs (embed, extract, package, fetch): the consumer sends a progress heartbeat
 * (`working()`) every third of it while the handler runs, so a live job never times out however long it
 * takes, and a job whose process died (kill -9, OOM, SIGSTOP) is redelivered to a healthy replica within
 * 10 s instead of 2-5 minutes. It is also how long a job waits whose delivery was lost with a killed JetStream
 * node (sent by the consumer leader, never received): 20 s made such an order wait 25-30 s after a leader kill.
 * How long a handler may run is its deadline, not the ack wait.
 */
export const HEARTBEAT_JOB_ACK_WAIT_MS = 10_000;

/**
 * Ack wait of a consumer that sets none (the events). Short, because a delivery whose ack the broker never got
 * waits this long to be redelivered: when a JetStream node dies, the deliveries and acks in flight through it
 * are lost, and those events only move again after it (30 s made a leader kill of EVENTS a 30 s stall; with
 * 10 s, an upload's storage notification lost that way kept the first order after the kill waiting 12-16 s,
 * beyond issue 35's 10 s). Redelivery comes at the later of the new leader's election (4-7 s measured) and
 * this wait, so 5 s adds little to the election. A handler may still run longer: the progress heartbeat
 * (`working()`, every third of the ack wait) holds it, and the event consumers live in services whose event
 * loop never blocks for seconds (orders, uploads, webhooks, reports, retention; the engines' jobs keep 10 s).
 */
export const DEFAULT_ACK_WAIT_MS = 5_000;

/** Deadline of one attempt at an event (a database transaction or two) when neither the definition nor the environment sets one. */
export const DEFAULT_EVENT_DEADLINE_MS = 2 * 60_000;

/** Headers of a parked message (PARKED stream) that the admin command reads; the body is the original message's. */
export const ParkedHeaders = {
  subject: 'Parked-Subject',
  durable: 'Parked-Durable',
  streamSequence: 'Parked-Stream-Sequence',
  deliveries: 'Parked-Deliveries',
  reason: 'Parked-Reason',
} as const;

/**
 * Set on a message republished by `admin parked replay`: only the consumer named here handles it. The original
 * subject may have other consumers (events fan out); they acknowledge the copy without running their handler.
 */
export const REPLAY_FOR_HEADER = 'Replay-For-Durable';

/**
 * Set on a message published again by the consumer it reached although that consumer does not read its subject
 * (`EventConsumer.redirect`): a copy that comes back to a consumer that does not read it is parked, not sent round.
 */
export const REDIRECTED_BY_HEADER = 'Redirected-By-Durable';

/** Whether a subject matches a NATS filter subject (`*`: one token, `>`: one or more at the end). */
export function subjectMatches(filter: string, subject: string): boolean {
  const wanted = filter.split('.');
  const tokens = subject.split('.');
  for (let index = 0; index < wanted.length; index += 1) {
    if (wanted[index] === '>') {
      return tokens.length > index;
    }
    if (index >= tokens.length || (wanted[index] !== '*' && wanted[index] !== tokens[index])) {
      return false;
    }
  }
  return wanted.length === tokens.length;
}

export interface HandlerContext {
  eventId: string;
  /** 1 on the first delivery: the broker's own count, so it survives restarts and is shared by replicas. */
  deliveryCount: number;
  /**
   * Aborted when this attempt's deadline passes: the consumer has stopped waiting and counted the attempt as
   * failed. Long steps should pass it on (fetches, workers) or check it between steps.
   */
  signal: AbortSignal;
  /**
   * Runs `work` in a transaction that also records this event in the inbox. When the event was already
   * handled, `work` does not run and the result is `false`. Heavy work belongs before this call. Once the
   * attempt's deadline has passed it refuses to start, and it rolls back instead of committing.
   */
  transaction(work: (tx: Transaction) => Promise<void>): Promise<boolean>;
}

export interface DecodedMessage<TData> {
  eventId: string;
  data: TData;
}

/** What a consumer reads: a declared event or job (`Events.*`, `Jobs.*`), or a raw subject with its payload class. */
export type ConsumedMessage<TData extends object> =
  | { message: MessageContract<TData>; filterSubject?: never; payload?: never }
  /** Only for messages that are not declared contracts (storage notifications, test subjects). */
  | { message?: never; filterSubject: string; payload: ClassConstructor<TData> };

/**
 * What happens when a valid message used up its attempts. Required, so a new consumer cannot forget it: either
 * a hook that makes the outcome visible (e.g. the order shows `processingDelayed`), or a stated reason why
 * parking alone is enough.
 */
export type ExhaustionPath<TData extends object> =
  | {
      /**
       * Called when a valid message failed its last attempt, before it is parked. If it fails on an outage
       * (database down) the message is kept and redelivered, so nothing is parked without its visible state;
       * any other failure is logged and the message is parked anyway (its reason says so).
       */
      onExhausted(data: TData, eventId: string, error: unknown): Promise<void>;
      parkOnlyBecause?: never;
    }
  | {
      onExhausted?: never;
      /** Why a parked message of this consumer needs nothing besides the PARKED stream (an operator replays it). */
      parkOnlyBecause: string;
    };

export type ConsumerDefinition<TData extends object> = ConsumerOptions<TData> & ConsumedMessage<TData> & ExhaustionPath<TData>;

export interface ConsumerOptions<TData extends object> {
  /** Durable consumer name, unique per service and purpose, e.g. `orders-credits-granted`. */
  durable: string;
  stream: string;
  handle(data: TData, context: HandlerContext): Promise<void>;
  /**
   * The messages of the subject this consumer has nothing to do with (the reports service and every status change
   * but `expired`): acknowledged without calling the handler and left out of the order's timeline, which then
   * shows only attempts that did something (and no statement is spent recording the others).
   */
  skip?(data: TData): boolean;
  /** Attempts (broker deliveries) before the message is parked on `parked.<durable>`. */
  maxAttempts?: number;
  /** Delay before each redelivery after a failure; the last value repeats. */
  backoffMs?: number[];
  ackWaitMs?: number;
  concurrency?: number;
  /**
   * Wall-clock budget of one attempt. Default: the job's declared `deadlineMs` (`Jobs.*`), else
   * `DEFAULT_EVENT_DEADLINE_MS`. The environment variable `JOB_DEADLINE_MS_<DURABLE>` overrides both.
   */
  deadlineMs?: number;
  /**
   * How long one delivery is held in this process, retrying, while the infrastructure (database, broker) is
   * down, before it is returned to the broker (which then counts one attempt). Default `TRANSIENT_HOLD_MS`.
   */
  transientHoldMs?: number;
  /** Messages that are not event envelopes (for example storage notifications) bring their own decoder. */
  decode?: (raw: unknown, message: JsMsg) => DecodedMessage<unknown>;
}

export class InvalidMessageError extends Error {}

/** An attempt that outlived its deadline: abandoned by the consumer and counted as failed. */
export class JobDeadlineExceededError extends Error {
  constructor(
    readonly durable: string,
    readonly deadlineMs: number,
  ) {
    super(`deadline of ${deadlineMs} ms exceeded`);
    this.name = 'JobDeadlineExceededError';
  }
}

const decoder = new TextDecoder();

function decodeEnvelope(raw: unknown): DecodedMessage<unknown> {
  const envelope = raw as Partial<EventEnvelope<unknown>> | null;
  if (!envelope || typeof envelope.eventId !== 'string' || typeof envelope.data !== 'object') {
    throw new InvalidMessageError('message is not an event envelope');
  }
  return { eventId: envelope.eventId, data: envelope.data };
}

/** Declared with the durables (`@cp/contracts`), where the start-up check of the environment (`@cp/config`) reads it too. */
export { deadlineVariableOf };

/** The deadline of one attempt of a consumer: environment, then definition, then the job's declaration, then the event default. */
export function resolveDeadlineMs(
  definition: Pick<ConsumerOptions<object>, 'durable' | 'deadlineMs'> & { message?: MessageContract<object> },
  env: NodeJS.ProcessEnv = process.env,
): number {
  const variable = deadlineVariableOf(definition.durable);
  const raw = env[variable];
  if (raw !== undefined && raw !== '') {
    const value = parseJobDeadlineMs(raw);
    if (value === null) {
      throw new Error(`${variable} must be a whole number of milliseconds from ${JOB_DEADLINE_MIN_MS} to ${JOB_DEADLINE_MAX_MS}, got "${raw}"`);
    }
    return value;
  }
  return definition.deadlineMs ?? (definition.message?.kind === 'job' ? definition.message.deadlineMs : DEFAULT_EVENT_DEADLINE_MS);
}

/** First wait before retrying in process after an infrastructure failure; it doubles up to `TRANSIENT_RETRY_MAX_MS`. */
export const TRANSIENT_RETRY_MS = 1000;
const TRANSIENT_RETRY_MAX_MS = 15_000;
/** Default of `transientHoldMs`: ten minutes of retries in process before the broker is asked to redeliver. */
export const TRANSIENT_HOLD_MS = 10 * 60_000;
/** A message that could not be parked (broker unreachable) comes back after this long and is parked then. */
const PARK_RETRY_MS = 5000;
/**
 * How long one pull waits for a message; also bounds how long `stop()` waits for an idle consumer. Not a wait on
 * a message's path (issue 32): a pull is a long poll that the server answers as soon as a message is stored, so
 * an idle consumer gets the next one without delay; the expiry only ends a pull that found nothing. Short (the
 * client's minimum): a pull held by a consumer leader that dies is never answered, and the slot only pulls from
 * the newly elected leader once it expires (3 s made up to 3 s of a JetStream node loss). An idle slot sends
 * one pull a second, which the broker answers from memory.
 */
const PULL_EXPIRES_MS = 1000;

const SOCKET_ERROR_CODES = /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;
/**
 * PostgreSQL classes that say the server, not the statement, is the problem: 08 connection exception,
 * 57P operator intervention (shutdown, crash, cannot connect now), 53 insufficient resources (too many
 * connections, out of memory, disk full). Not 57014 (query_canceled, e.g. `statement_timeout`): a statement
 * that is too slow is usually this message's doing (a huge batch, a lock it waits on), and counting it as an
 * attempt lets such a message be parked instead of retried without end.
 */
const POSTGRES_TRANSIENT_SQLSTATE = /^(08|57P|53)[0-9A-Z]{2,3}$/;
/** nats.js `ErrorCode`s of a connection that is down, reconnecting or draining, of a request nobody answered in time, or of no responders. */
const NATS_TRANSIENT_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'DISCONNECT', 'TIMEOUT', '503']);
const TRANSIENT_MESSAGES =
  /terminating connection|Connection terminated|the database system is (starting up|shutting down|in recovery mode)|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable/i;

/**
 * A failure that says nothing about the message: the database is down, restarting or has no connection to
 * give (pg-pool's connect timeout), a connection broke, or the broker is unreachable. Looks through `cause`,
 * TypeORM's `driverError` and the `errors` of an AggregateError (Node's dual-stack connect).
 *
 * Only our own infrastructure (PostgreSQL, NATS, storage) is ever transient. A failure that came through
 * `@cp/egress` (an `EgressError` anywhere in the chain) never is: its destination was named by input (a source
 * URL, a webhook, a zero-copy target), so "connect ECONNREFUSED" there is a client's closed port, not an outage.
 * Held as one, a URL that refuses connections would keep a consumer slot for `transientHoldMs` per delivery
 * without counting an attempt. Checked by type before any code or message, which read the same in both cases.
 */
export function isTransientInfrastructureError(error: unknown): boolean {
  const chain = linkedErrors(error);
  if (chain.some((current) => current instanceof EgressError)) {
    return false;
  }
  return chain.some(isInfrastructureFailure);
}

/** The error and every error linked to it (`cause`, `driverError`, an AggregateError's `errors`), each once. */
function linkedErrors(error: unknown): Error[] {
  const seen = new Set<Error>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (!(current instanceof Error) || seen.has(current)) {
      continue;
    }
    seen.add(current);
    const linked = current as Error & { cause?: unknown; driverError?: unknown; errors?: unknown };
    queue.push(linked.cause, linked.driverError, ...(Array.isArray(linked.errors) ? (linked.errors as unknown[]) : []));
  }
  return [...seen];
}

/** One error, on its own, says the database, the broker or a connection to them failed. */
function isInfrastructureFailure(current: Error): boolean {
  if (current instanceof RpcUnavailableError) {
    return true;
  }
  const { code } = current as Error & { code?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_ERROR_CODES.test(code) || POSTGRES_TRANSIENT_SQLSTATE.test(code)) {
      return true;
    }
    if (current.name === 'NatsError' && NATS_TRANSIENT_CODES.has(code)) {
      return true;
    }
  }
  return TRANSIENT_MESSAGES.test(current.message);
}

type Attempt = { ok: true } | { ok: false; error: unknown };

/**
 * Runs one durable JetStream pull consumer: validates each payload like an HTTP body, makes the handler
 * idempotent through the inbox, bounds every attempt by a deadline, redelivers failures with backoff, and
 * parks a message on `parked.<durable>` (PARKED stream) when its attempts are used up or it can never be valid.
 *
 * Attempts are the broker's delivery count (`redeliveryCount`), never a count kept in this process: a restart
 * or a second replica sees the same number. For that count to mean "attempts", a delivery must only end
 * without an ack when the message itself failed. Hence:
 * - each slot pulls one message when it is free (`next()`), so no message waits in a client buffer while its
 *   ack wait runs out (a buffered message would be redelivered, and counted, without ever being tried);
 * - an infrastructure failure (database or broker down, see `isTransientInfrastructureError`) keeps the
 *   delivery: the handler is retried in this process with growing pauses while `working()` heartbeats hold the
 *   message, so the count does not move however long a database outage lasts, on one replica or several (each
 *   holds its own messages; the broker never hands a held message to another). Only after `transientHoldMs`
 *   (default 10 min, so a handler that wrongly looks transient is not retried forever), or when the process
 *   stops, is it returned to the broker, which counts one delivery: at most one per hold or per restart,
 *   instead of one per retry;
 * - a process that dies mid-attempt (crash, OOM, kill -9) counts one delivery, which is right: that attempt
 *   may have been the cause.
 * The server's `max_deliver` stays -1 (unlimited): when a server limit is reached the server just stops
 * delivering and the message sits in the stream unseen, while this consumer's own limit parks it with its
 * reason and runs the exhaustion hook, so the order shows it.
 */
export class EventConsumer<TData extends object> {
  private readonly logger: Logger;
  private readonly deadlineMs: number;
  private readonly attempts: JobAttemptsRecorder;
  private workers: Array<Promise<void>> = [];
  private stopping = false;
  /** The messages being handled now, each until its delivery is settled. */
  private readonly inFlight = new Set<JsMsg>();
  /** Messages given back to the broker when a stop ran out of time: whatever their handler does later is not sent. */
  private readonly givenBack = new WeakSet<JsMsg>();
  /** Wakes the pauses between in-process retries when the consumer stops. */
  private readonly stopSignal = new AbortController();

  constructor(
    private readonly definition: ConsumerDefinition<TData>,
    private readonly dataSource: DataSource,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** Shared by a process's consumers (`MessagingRuntime`), so their attempt records share statements. */
    attempts?: JobAttemptsRecorder,
  ) {
    this.logger = new Logger(`Consumer:${definition.durable}`);
    this.deadlineMs = resolveDeadlineMs(definition);
    this.attempts = attempts ?? new JobAttemptsRecorder(new JobAttemptsRepository(dataSource));
  }

  private get maxAttempts(): number {
    return this.definition.maxAttempts ?? 5;
  }

  private get concurrency(): number {
    return this.definition.concurrency ?? 1;
  }

  async start(): Promise<void> {
    // Retried while JetStream elects leaders (a node lost or starting), within a deadline; then the start fails.
    const consumer = await retryDuringElection(
      async () => {
        await this.ensureConsumer();
        return this.js.consumers.get(this.definition.stream, this.definition.durable);
      },
      { onRetry: (error) => this.logger.warn({ err: error }, 'JetStream electing a leader; consumer set-up retried') },
    );
    this.workers = Array.from({ length: this.concurrency }, () => this.work(consumer));
  }

  /**
   * Stops pulling, ends in-process retries, and waits for the attempts being handled (drain before shutdown), until
   * `deadline` (epoch ms) at the latest. A pod's grace period is shorter than the longest job (an embed may run 15
   * minutes): waiting on, the pod was killed at the end of its grace period with the rest of its shutdown undone (RPC
   * replies in flight cut, the relay stopped mid-batch) and its jobs came back only after their ack wait. Past the
   * deadline, every message still being handled is given back to the broker at once (`nak`, redelivered to another
   * replica now; it counts one delivery, as the kill would) and nothing its handler does later is sent for it; the
   * handler's effects are idempotent (the inbox), as for a process that dies mid-attempt.
   */
  async stop(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    let timer: NodeJS.Timeout | undefined;
    const finished = Promise.allSettled(this.workers).then(() => true);
    const outOfTime = Number.isFinite(deadline)
      ? new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
        })
      : new Promise<boolean>(() => undefined);
    const drained = await Promise.race([finished, outOfTime]);
    clearTimeout(timer);
    if (!drained) {
      const messages = [...this.inFlight];
      for (const message of messages) {
        this.settle(message, 'nak');
        this.givenBack.add(message);
        this.inFlight.delete(message);
      }
      if (messages.length > 0) {
        this.logger.warn({ messages: messages.length }, 'stopping: still being handled at the drain deadline; given back to the broker for another replica');
      }
    }
    await this.attempts.flush();
  }

  /** One slot: pulls a message only when free. Never rejects (no unhandled rejection can end the process). */
  private async work(consumer: Consumer): Promise<void> {
    while (!this.stopping) {
      let message: JsMsg | null;
      try {
        message = await consumer.next({ expires: PULL_EXPIRES_MS });
      } catch (error) {
        // A leader election of the stream (a JetStream node lost) answers timeouts and "no responders" until a
        // new leader serves the pull: retried. A consumer the cluster no longer has is made again.
        this.logger.warn({ err: error }, 'pull failed; retrying');
        await this.pause(TRANSIENT_RETRY_MS);
        if (error instanceof Error && /consumer (is )?not found|consumer deleted/i.test(error.message) && !this.stopping) {
          await this.ensureConsumer().catch((failure: unknown) => this.logger.warn({ err: failure }, 'could not recreate the consumer; retrying'));
        }
        continue;
      }
      if (message) {
        await this.process(message).catch((error: unknown) => {
          this.logger.error({ err: error }, 'message processing failed unexpectedly; the broker redelivers it');
        });
      }
    }
  }

  private async ensureConsumer(): Promise<void> {
    const ackWaitMs = this.definition.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const config: Partial<ConsumerConfig> = {
      durable_name: this.definition.durable,
      filter_subject: this.filterSubject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      // Unlimited on the server: this consumer parks a message itself once the broker's delivery count passes
      // `maxAttempts` (see the class comment); a server limit would strand it silently instead.
      max_deliver: -1,
      max_ack_pending: Math.max(10, this.concurrency * 4),
      // 0: the stream's replication (NATS_STREAM_REPLICAS), also after the stream is scaled in place; a number
      // here would pin the consumer's state to fewer nodes than its stream's and lose it with one of them.
      num_replicas: 0,
    };
    try {
      await this.jsm.consumers.info(this.definition.stream, this.definition.durable);
      await this.jsm.consumers.update(this.definition.stream, this.definition.durable, {
        ack_wait: config.ack_wait,
        max_deliver: config.max_deliver,
        max_ack_pending: config.max_ack_pending,
      });
    } catch (error) {
      if (!(error instanceof Error && /not found/i.test(error.message))) {
        throw error;
      }
      await this.jsm.consumers.add(this.definition.stream, config);
    }
  }

  private get filterSubject(): string {
    return this.definition.message ? this.definition.message.subject : this.definition.filterSubject;
  }

  private async process(message: JsMsg): Promise<void> {
    const replayFor = message.headers?.get(REPLAY_FOR_HEADER);
    if (replayFor && replayFor !== this.definition.durable) {
      // An operator's replay meant for another consumer of the same subject.
      this.settle(message, 'ack');
      return;
    }
    if (!subjectMatches(this.filterSubject, message.subject)) {
      await this.redirect(message);
      return;
    }
    const deliveryCount = message.info.redeliveryCount;
    const heartbeat = setInterval(() => this.settle(message, 'working'), Math.max(1000, (this.definition.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) / 3));
    this.inFlight.add(message);
    try {
      let decoded: DecodedMessage<TData>;
      try {
        decoded = this.decode(message);
      } catch (error) {
        await this.park(message, error instanceof Error ? error.message : 'invalid message');
        return;
      }
      if (this.definition.skip?.(decoded.data)) {
        this.settle(message, 'ack');
        return;
      }
      if (deliveryCount > this.maxAttempts) {
        // The previous deliveries ended without an answer: the process died or stopped during them.
        await this.exhaust(message, decoded, new Error('attempts exhausted (the process handling it stopped or died)'));
        return;
      }
      const stopTimer = messagingMetrics.attemptDuration.startTimer({ consumer: this.definition.durable });
      const startedAt = new Date();
      const attempt = await this.tracedAttempt(message, decoded, deliveryCount);
      if (this.givenBack.has(message)) {
        // A stop gave it back while it ran: its delivery is another replica's now, its outcome is not this one's to act on.
        return;
      }
      if (attempt.ok) {
        this.settle(message, 'ack');
        stopTimer({ outcome: 'ok' });
        messagingMetrics.handled.inc({ consumer: this.definition.durable, outcome: 'ok' });
        this.recordAttempt(message, decoded, startedAt, 'ok', null);
        return;
      }
      const { error } = attempt;
      const deadline = error instanceof JobDeadlineExceededError;
      stopTimer({ outcome: deadline ? 'deadline' : 'error' });
      messagingMetrics.handled.inc({ consumer: this.definition.durable, outcome: deadline ? 'deadline' : 'error' });
      this.recordAttempt(message, decoded, startedAt, deadline ? 'deadline' : 'error', error instanceof Error ? error.message : String(error));
      // Logs name the event and, when it has one, the order it is about.
      const context = { err: error, deliveryCount, eventId: decoded.eventId, orderId: (decoded.data as { orderId?: unknown }).orderId };
      if (isTransientInfrastructureError(error)) {
        // Held for `transientHoldMs` or stopped: back to the broker, which counts this one delivery.
        this.logger.warn({ ...context, retryInMs: TRANSIENT_RETRY_MS }, 'infrastructure still unavailable; returned to the broker');
        this.settle(message, 'nak', TRANSIENT_RETRY_MS);
        return;
      }
      if (deliveryCount >= this.maxAttempts) {
        this.logger.error(context, deadline ? 'handler passed its deadline; attempts exhausted' : 'handler failed; attempts exhausted');
        await this.exhaust(message, decoded, error);
        return;
      }
      const backoff = this.definition.backoffMs ?? [1000, 5000, 30_000, 120_000];
      const delay = backoff[Math.min(deliveryCount - 1, backoff.length - 1)];
      this.logger.warn({ ...context, retryInMs: delay }, deadline ? 'handler passed its deadline; abandoned, will be redelivered' : 'handler failed; will be redelivered');
      this.settle(message, 'nak', delay);
    } finally {
      clearInterval(heartbeat);
      this.inFlight.delete(message);
    }
  }

  /**
   * The attempt in a consumer span whose parent is the publisher's (`traceparent` header, written by the outbox
   * relay from the row): the order's trace continues across the broker, the relay and restarts (issue 33).
   */
  private tracedAttempt(message: JsMsg, decoded: DecodedMessage<TData>, deliveryCount: number): Promise<Attempt> {
    const data = decoded.data as { orderId?: unknown; accountId?: unknown; orderType?: unknown };
    const attributes = {
      ...orderAttributes({
        orderId: typeof data.orderId === 'string' ? data.orderId : undefined,
        accountId: typeof data.accountId === 'string' ? data.accountId : undefined,
        orderType: typeof data.orderType === 'string' ? data.orderType : undefined,
      }),
      'messaging.destination.name': message.subject,
      'messaging.consumer.group.name': this.definition.durable,
      'cp.delivery_count': deliveryCount,
    };
    return inSpan(`consume ${message.subject}`, { kind: SpanKind.CONSUMER, parent: contextFromHeaders(message.headers), attributes }, async (span) => {
      const attempt = await this.attemptHoldingOnOutage(decoded, deliveryCount);
      if (!attempt.ok) {
        recordSpanError(span, attempt.error);
      }
      return attempt;
    });
  }

  /** Runs the handler; while it fails on the infrastructure, retries it in process (heartbeats keep the delivery). */
  private attemptHoldingOnOutage(decoded: DecodedMessage<TData>, deliveryCount: number): Promise<Attempt> {
    return this.holdOnOutage(decoded, deliveryCount, () => this.attemptWithDeadline(decoded, deliveryCount));
  }

  /** Repeats `run` while it fails on the infrastructure, with growing pauses, for at most `transientHoldMs` or until the consumer stops. */
  private async holdOnOutage(decoded: DecodedMessage<TData>, deliveryCount: number, run: () => Promise<Attempt>): Promise<Attempt> {
    const holdUntil = Date.now() + (this.definition.transientHoldMs ?? TRANSIENT_HOLD_MS);
    let pauseMs = TRANSIENT_RETRY_MS;
    let lastWarning = 0;
    for (;;) {
      const attempt = await run();
      if (attempt.ok || !isTransientInfrastructureError(attempt.error) || this.stopping || Date.now() + pauseMs > holdUntil) {
        return attempt;
      }
      if (Date.now() - lastWarning > 60_000) {
        lastWarning = Date.now();
        this.logger.warn({ err: attempt.error, eventId: decoded.eventId, deliveryCount }, 'infrastructure unavailable; retrying in process (not counted as an attempt)');
      }
      await this.pause(pauseMs);
      pauseMs = Math.min(pauseMs * 2, TRANSIENT_RETRY_MAX_MS);
    }
  }

  /** One run of the handler, bounded by the deadline: past it the signal aborts and the consumer stops waiting. */
  private async attemptWithDeadline(decoded: DecodedMessage<TData>, deliveryCount: number): Promise<Attempt> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new JobDeadlineExceededError(this.definition.durable, this.deadlineMs);
        controller.abort(error);
        reject(error);
      }, this.deadlineMs);
    });
    const work = Promise.resolve().then(() => this.definition.handle(decoded.data, this.context(decoded.eventId, deliveryCount, controller.signal)));
    try {
      await Promise.race([work, deadline]);
      return { ok: true };
    } catch (error) {
      if (controller.signal.aborted) {
        // The abandoned run may still settle later; say so, once, for whoever reads the logs.
        work.then(
          () => this.logger.warn({ eventId: decoded.eventId }, 'abandoned attempt finished after its deadline (its transaction was not committed)'),
          () => undefined,
        );
      }
      return { ok: false, error };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Keeps the attempt for the order's timeline (`job_attempt`) when the message is about an order. Best effort:
   * a failure to record is logged and changes nothing of the message's handling.
   */
  private recordAttempt(message: JsMsg, decoded: DecodedMessage<TData>, startedAt: Date, outcome: string, reason: string | null): void {
    const orderId = (decoded.data as { orderId?: unknown }).orderId;
    if (typeof orderId !== 'string' && typeof orderId !== 'number') {
      return;
    }
    this.attempts.record({
      consumer: this.definition.durable,
      subject: message.subject,
      eventId: decoded.eventId,
      orderId: String(orderId),
      delivery: message.info.redeliveryCount,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
      outcome,
      reason: reason === null ? null : reason.replace(/[\r\n]+/g, ' ').slice(0, 500),
    });
  }

  /**
   * Attempts used up: the hook makes the outcome visible, then the message is parked. A hook that fails on an
   * outage keeps the message (redelivered, and exhausted again, once the infrastructure is back).
   */
  private async exhaust(message: JsMsg, decoded: DecodedMessage<TData>, error: unknown): Promise<void> {
    let reason = error instanceof Error ? error.message : 'handler failed';
    if (this.definition.onExhausted) {
      const hook = this.definition.onExhausted.bind(this.definition);
      // Held on an outage like the handler: the visible state is what makes parking safe.
      const result = await this.holdOnOutage(decoded, message.info.redeliveryCount, () => this.boundedHook(() => hook(decoded.data, decoded.eventId, error)));
      if (!result.ok) {
        if (isTransientInfrastructureError(result.error)) {
          this.logger.warn({ err: result.error, eventId: decoded.eventId }, 'onExhausted failed on the infrastructure; kept for later');
          this.settle(message, 'nak', PARK_RETRY_MS);
          return;
        }
        this.logger.error({ err: result.error, eventId: decoded.eventId }, 'onExhausted hook failed; parking anyway');
        reason = `${reason} (onExhausted failed: ${result.error instanceof Error ? result.error.message : String(result.error)})`;
      }
    }
    await this.park(message, reason);
    this.recordAttempt(message, decoded, new Date(), 'parked', reason);
  }

  private async boundedHook(hook: () => Promise<void>): Promise<Attempt> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new JobDeadlineExceededError(this.definition.durable, this.deadlineMs)), this.deadlineMs);
    });
    try {
      await Promise.race([Promise.resolve().then(hook), deadline]);
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    } finally {
      clearTimeout(timer);
    }
  }

  private decode(message: JsMsg): DecodedMessage<TData> {
    let raw: unknown;
    try {
      raw = JSON.parse(decoder.decode(message.data));
    } catch {
      throw new InvalidMessageError('message body is not JSON');
    }
    const decoded = (this.definition.decode ?? decodeEnvelope)(raw, message);
    const data = plainToInstance(this.definition.message ? this.definition.message.payload : this.definition.payload, decoded.data);
    const errors = validateSync(data, { whitelist: true, forbidUnknownValues: true });
    if (errors.length > 0) {
      throw new InvalidMessageError(`invalid payload: ${errors.map((error) => error.property).join(', ')}`);
    }
    return { eventId: decoded.eventId, data };
  }

  private context(eventId: string, deliveryCount: number, signal: AbortSignal): HandlerContext {
    const consumer = this.definition.durable;
    return {
      eventId,
      deliveryCount,
      signal,
      transaction: async (work) => {
        signal.throwIfAborted();
        return this.dataSource.transaction(async (manager) => {
          const inserted = await manager
            .createQueryBuilder()
            .insert()
            .into(InboxRecordEntity)
            .values({ consumer, eventId })
            .orIgnore()
            .returning(['eventId'])
            .execute();
          if ((inserted.raw as unknown[]).length === 0) {
            return false;
          }
          await work(asTransaction(manager));
          // The deadline passed while the work ran: the consumer already counted this attempt as failed and
          // may redeliver it, so nothing of it may commit.
          signal.throwIfAborted();
          return true;
        });
      },
    };
  }

  /**
   * Publishes the message to `parked.<durable>` and ends its delivery. A failed publish (broker unreachable)
   * is caught: the message is returned for later and parked then, never lost, never an unhandled rejection.
   */
  private async park(message: JsMsg, reason: string): Promise<void> {
    const headers = natsHeaders();
    headers.set(ParkedHeaders.subject, message.subject);
    headers.set(ParkedHeaders.durable, this.definition.durable);
    headers.set(ParkedHeaders.streamSequence, String(message.seq));
    headers.set(ParkedHeaders.deliveries, String(message.info.redeliveryCount));
    headers.set(ParkedHeaders.reason, reason.replace(/[\r\n]+/g, ' ').slice(0, 500));
    await this.republish(message, `${PARKED_SUBJECT_PREFIX}.${this.definition.durable}`, headers, `${this.definition.durable}:${message.info.stream}:${message.seq}`, 'parked');
  }

  /**
   * Publishes the message's body on `subject`, then ends its delivery here (`term` once parked, `ack` once sent on).
   * A failed publish (broker unreachable) is caught: the message is returned for later, never lost.
   */
  private async republish(message: JsMsg, subject: string, headers: MsgHdrs, msgID: string, outcome: 'parked' | 'redirected'): Promise<void> {
    try {
      await this.js.publish(subject, message.data, { headers, msgID });
    } catch (error) {
      this.logger.error({ err: error, retryInMs: PARK_RETRY_MS, outcome }, 'could not publish the message; kept for later');
      this.settle(message, 'nak', PARK_RETRY_MS);
      return;
    }
    this.settle(message, outcome === 'parked' ? 'term' : 'ack');
    messagingMetrics.handled.inc({ consumer: this.definition.durable, outcome });
  }

  /**
   * A message of a subject this consumer does not read. Seen once in the chaos suite: an embed job delivered to the
   * extract consumer of the work-queue JOBS stream, just after nats-server 2.9.10 logged "Catchup for stream ...
   * resetting first sequence" on a restarted node. Handling it would run the wrong handler; parking it failed its
   * order; acknowledging it would take it from a work-queue stream unhandled. So: delivered through another
   * consumer (a client mix-up), it goes back to that consumer (nak); delivered through this one (the server's
   * fault), it is published again on its own subject, same body and event id (consumers that already handled it
   * skip it through their inbox), then acknowledged here. A copy that reaches a consumer that does not read it
   * either is parked: never sent round.
   */
  private async redirect(message: JsMsg): Promise<void> {
    const where = { subject: message.subject, filterSubject: this.filterSubject, deliveredBy: message.info.consumer, stream: message.info.stream, streamSequence: message.seq };
    if (message.info.consumer !== this.definition.durable) {
      this.logger.error(where, "another consumer's message reached this one; returned to it");
      this.settle(message, 'nak');
      return;
    }
    if (message.headers?.get(REDIRECTED_BY_HEADER)) {
      await this.park(message, `a copy of subject ${message.subject}, which this consumer does not read, came back to it`);
      return;
    }
    this.logger.error(where, 'the broker delivered a message of a subject this consumer does not read; published again on its subject');
    const headers = natsHeaders();
    for (const key of message.headers?.keys() ?? []) {
      // the broker's own headers (message id, expectations) are not the copy's
      if (!key.toLowerCase().startsWith('nats-')) {
        for (const value of message.headers?.values(key) ?? []) headers.append(key, value);
      }
    }
    headers.set(REDIRECTED_BY_HEADER, this.definition.durable);
    await this.republish(message, message.subject, headers, `${this.definition.durable}:redirect:${message.info.stream}:${message.seq}`, 'redirected');
  }

  /** Ack, nak, term or heartbeat; on a closed connection it throws, and the broker's ack wait then redelivers anyway. */
  private settle(message: JsMsg, action: 'ack' | 'nak' | 'term' | 'working', delayMs?: number): void {
    if (this.givenBack.has(message)) {
      // Given back at a stop's deadline: another replica may be handling it now.
      return;
    }
    try {
      if (action === 'nak') {
        message.nak(delayMs);
      } else {
        message[action]();
      }
    } catch (error) {
      this.logger.warn({ err: error, action }, 'could not reach the broker; it redelivers after the ack wait');
    }
  }

  /** Waits `ms`, or less when the consumer stops. */
  private pause(ms: number): Promise<void> {
    const stop = this.stopSignal.signal;
    return new Promise((resolve) => {
      if (stop.aborted) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stop.addEventListener('abort', done, { once: true });
    });
  }
}

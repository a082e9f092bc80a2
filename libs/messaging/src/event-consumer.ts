import { EventEnvelope, MessageContract, PARKED_SUBJECT_PREFIX } from '@cp/contracts';
import { Logger } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  AckPolicy,
  ConsumerConfig,
  ConsumerMessages,
  DeliverPolicy,
  headers as natsHeaders,
  JetStreamClient,
  JetStreamManager,
  JsMsg,
  nanos,
} from 'nats';
import { DataSource, EntityManager } from 'typeorm';
import { InboxRecordEntity } from './inbox-record.entity';
import { messagingMetrics } from './messaging-metrics';

/**
 * Ack wait of long jobs (embed, extract, package, fetch): the consumer sends a progress heartbeat
 * (`working()`) every third of it while the handler runs, so a live job never times out however long it
 * takes, and a job whose process died (kill -9, OOM, SIGSTOP) is redelivered to a healthy replica within
 * 20 s instead of 2-5 minutes.
 */
export const HEARTBEAT_JOB_ACK_WAIT_MS = 20_000;

export interface HandlerContext {
  eventId: string;
  /** 1 on the first delivery. */
  deliveryCount: number;
  /**
   * Runs `work` in a transaction that also records this event in the inbox. When the event was already
   * handled, `work` does not run and the result is `false`. Heavy work belongs before this call.
   */
  transaction(work: (manager: EntityManager) => Promise<void>): Promise<boolean>;
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

export type ConsumerDefinition<TData extends object> = ConsumerOptions<TData> & ConsumedMessage<TData>;

export interface ConsumerOptions<TData extends object> {
  /** Durable consumer name, unique per service and purpose, e.g. `orders-credits-granted`. */
  durable: string;
  stream: string;
  handle(data: TData, context: HandlerContext): Promise<void>;
  /** Attempts before the message is parked on `parked.<durable>`. */
  maxAttempts?: number;
  /** Delay before each redelivery after a failure; the last value repeats. */
  backoffMs?: number[];
  ackWaitMs?: number;
  concurrency?: number;
  /**
   * Called once when a valid message failed its last attempt, before it is parked (for example to mark
   * an order `processingDelayed`). Its own failure is logged and does not prevent parking.
   */
  onExhausted?(data: TData, eventId: string, error: unknown): Promise<void>;
  /** Messages that are not event envelopes (for example storage notifications) bring their own decoder. */
  decode?: (raw: unknown, message: JsMsg) => DecodedMessage<unknown>;
}

export class InvalidMessageError extends Error {}

const decoder = new TextDecoder();

function decodeEnvelope(raw: unknown): DecodedMessage<unknown> {
  const envelope = raw as Partial<EventEnvelope<unknown>> | null;
  if (!envelope || typeof envelope.eventId !== 'string' || typeof envelope.data !== 'object') {
    throw new InvalidMessageError('message is not an event envelope');
  }
  return { eventId: envelope.eventId, data: envelope.data };
}

/** Retry delay after a failure of the infrastructure (database or broker unreachable), not of the message. */
export const TRANSIENT_RETRY_MS = 2000;

/**
 * A failure that says nothing about the message: the database is down or restarting, or a connection broke
 * (Node socket codes, PostgreSQL classes 08 "connection exception" and 57P "operator intervention").
 */
export function isTransientInfrastructureError(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = (current as Error & { cause?: unknown }).cause) {
    seen.add(current);
    const { code } = current as Error & { code?: unknown };
    if (typeof code === 'string' && (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code) || /^(08|57P)/.test(code))) {
      return true;
    }
    if (/terminating connection|Connection terminated|the database system is (starting up|shutting down|in recovery mode)|connect ECONNREFUSED/i.test(current.message)) {
      return true;
    }
  }
  return false;
}

/**
 * Runs one durable JetStream pull consumer: validates each payload like an HTTP body, makes the handler
 * idempotent through the inbox, redelivers failures with backoff, and parks a message on
 * `parked.<durable>` (PARKED stream) when its attempts are used up or it can never be valid.
 */
export class EventConsumer<TData extends object> {
  private readonly logger: Logger;
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Deliveries of a message (by stream sequence) that failed because the infrastructure did, in this process:
   * they do not count against `maxAttempts`, so an outage of the database parks nothing.
   */
  private readonly transientFailures = new Map<number, number>();

  constructor(
    private readonly definition: ConsumerDefinition<TData>,
    private readonly dataSource: DataSource,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {
    this.logger = new Logger(`Consumer:${definition.durable}`);
  }

  private get maxAttempts(): number {
    return this.definition.maxAttempts ?? 5;
  }

  async start(): Promise<void> {
    await this.ensureConsumer();
    const consumer = await this.js.consumers.get(this.definition.stream, this.definition.durable);
    this.messages = await consumer.consume({ max_messages: this.definition.concurrency ?? 1 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const message of messages) {
        const task = this.process(message).finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
        if (this.inFlight.size >= (this.definition.concurrency ?? 1)) {
          await Promise.race(this.inFlight);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async ensureConsumer(): Promise<void> {
    const ackWaitMs = this.definition.ackWaitMs ?? 30_000;
    const config: Partial<ConsumerConfig> = {
      durable_name: this.definition.durable,
      filter_subject: this.definition.message ? this.definition.message.subject : this.definition.filterSubject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      // No server limit: this consumer parks a message once it used its own attempts, and deliveries that
      // failed on an outage (database down) do not count, so an outage longer than the backoff parks nothing.
      max_deliver: -1,
      max_ack_pending: Math.max(10, (this.definition.concurrency ?? 1) * 4),
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

  private async process(message: JsMsg): Promise<void> {
    const deliveryCount = message.info.redeliveryCount;
    // Attempts the message itself used: deliveries that failed on an outage are not its fault.
    const attempt = deliveryCount - (this.transientFailures.get(message.seq) ?? 0);
    const heartbeat = setInterval(() => message.working(), Math.max(1000, (this.definition.ackWaitMs ?? 30_000) / 3));
    let decoded: DecodedMessage<TData> | undefined;
    try {
      if (attempt > this.maxAttempts) {
        await this.park(message, 'attempts exhausted (handler crashed or timed out)');
        return;
      }
      try {
        decoded = this.decode(message);
      } catch (error) {
        await this.park(message, error instanceof Error ? error.message : 'invalid message');
        return;
      }
      await this.definition.handle(decoded.data, this.context(decoded.eventId, deliveryCount));
      message.ack();
      this.transientFailures.delete(message.seq);
      messagingMetrics.handled.inc({ consumer: this.definition.durable, outcome: 'ok' });
    } catch (error) {
      messagingMetrics.handled.inc({ consumer: this.definition.durable, outcome: 'error' });
      // Logs name the event and, when it has one, the order it is about.
      const context = { err: error, deliveryCount, eventId: decoded?.eventId, orderId: (decoded?.data as { orderId?: string } | undefined)?.orderId };
      if (isTransientInfrastructureError(error)) {
        this.transientFailures.set(message.seq, (this.transientFailures.get(message.seq) ?? 0) + 1);
        this.logger.warn({ ...context, retryInMs: TRANSIENT_RETRY_MS }, 'infrastructure unavailable; will be redelivered');
        message.nak(TRANSIENT_RETRY_MS);
        return;
      }
      if (attempt >= this.maxAttempts) {
        this.logger.error(context, 'handler failed; attempts exhausted, parking the message');
        if (decoded && this.definition.onExhausted) {
          await this.definition.onExhausted(decoded.data, decoded.eventId, error).catch((hookError: unknown) => {
            this.logger.error({ err: hookError }, 'onExhausted hook failed');
          });
        }
        await this.park(message, error instanceof Error ? error.message : 'handler failed');
        return;
      }
      const backoff = this.definition.backoffMs ?? [1000, 5000, 30_000, 120_000];
      const delay = backoff[Math.min(attempt - 1, backoff.length - 1)];
      this.logger.warn({ ...context, retryInMs: delay }, 'handler failed; will be redelivered');
      message.nak(delay);
    } finally {
      clearInterval(heartbeat);
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

  private context(eventId: string, deliveryCount: number): HandlerContext {
    const consumer = this.definition.durable;
    return {
      eventId,
      deliveryCount,
      transaction: (work) =>
        this.dataSource.transaction(async (manager) => {
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
          await work(manager);
          return true;
        }),
    };
  }

  private async park(message: JsMsg, reason: string): Promise<void> {
    this.transientFailures.delete(message.seq);
    const headers = natsHeaders();
    headers.set('Parked-Subject', message.subject);
    headers.set('Parked-Stream-Sequence', String(message.seq));
    headers.set('Parked-Deliveries', String(message.info.redeliveryCount));
    headers.set('Parked-Reason', reason.slice(0, 500));
    await this.js.publish(`${PARKED_SUBJECT_PREFIX}.${this.definition.durable}`, message.data, {
      headers,
      msgID: `${this.definition.durable}:${message.info.stream}:${message.seq}`,
    });
    message.term();
    messagingMetrics.handled.inc({ consumer: this.definition.durable, outcome: 'parked' });
  }
}

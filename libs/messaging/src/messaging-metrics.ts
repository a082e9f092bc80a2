import { Counter, Gauge, Histogram } from 'prom-client';

export const messagingMetrics = {
  outboxPublished: new Counter({ name: 'outbox_events_published_total', help: 'Outbox events relayed to JetStream' }),
  outboxPending: new Gauge({ name: 'outbox_events_pending', help: 'Outbox events written but not yet relayed' }),
  /** Rows parked by the relay because the broker can never take them (larger than its max_payload). */
  outboxParked: new Counter({
    name: 'outbox_events_parked_total',
    help: 'Outbox events the relay parked because the NATS server can never accept them (larger than its max_payload), by subject',
    labelNames: ['subject'],
  }),
  handled: new Counter({
    name: 'messaging_messages_handled_total',
    help: 'JetStream messages by consumer and outcome',
    labelNames: ['consumer', 'outcome'],
  }),
  /** One attempt of a message or job, by consumer (one per job type) and outcome: the duration of RED. */
  attemptDuration: new Histogram({
    name: 'messaging_attempt_duration_seconds',
    help: 'Duration of one attempt at a JetStream message, by consumer and outcome (ok, error, deadline)',
    labelNames: ['consumer', 'outcome'],
    buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 60, 300, 900],
  }),
  /** Request/reply handlers (`@RpcHandler`) by subject and outcome: RED of every service's RPC routes. */
  rpcDuration: new Histogram({
    name: 'rpc_server_duration_seconds',
    help: 'Duration of request/reply handlers by subject and outcome (ok; rejected: a domain error code; failed: anything else)',
    labelNames: ['subject', 'outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
  }),
};

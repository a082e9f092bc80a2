import { Counter, Gauge } from 'prom-client';

export const messagingMetrics = {
  outboxPublished: new Counter({ name: 'outbox_events_published_total', help: 'Outbox events relayed to JetStream' }),
  outboxPending: new Gauge({ name: 'outbox_events_pending', help: 'Outbox events written but not yet relayed' }),
  handled: new Counter({
    name: 'messaging_messages_handled_total',
    help: 'JetStream messages by consumer and outcome',
    labelNames: ['consumer', 'outcome'],
  }),
};

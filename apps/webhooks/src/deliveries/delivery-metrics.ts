import { Counter, Gauge } from 'prom-client';

/** Webhook delivery metrics on the default registry (served at /metrics). */
export const deliveryMetrics = {
  attempts: new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (success, http_error, timeout, network_error, blocked) and trigger',
    labelNames: ['outcome', 'trigger'],
  }),
  deliveries: new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries that reached a final state, by outcome (success, failed)',
    labelNames: ['outcome'],
  }),
  oldestPendingAge: new Gauge({
    name: 'webhook_oldest_pending_delivery_age_seconds',
    help: 'Age of the oldest PENDING webhook delivery (0 when none)',
  }),
  pruned: new Counter({
    name: 'webhook_deliveries_pruned_total',
    help: 'Ended webhook deliveries (SUCCESS, FAILED) deleted after the retention period',
  }),
  inFlight: new Gauge({
    name: 'webhook_deliveries_in_flight',
    help: 'Webhook delivery attempts running in this process',
  }),
};

import { Counter } from 'prom-client';

/** The reconciliation of the schedule with orders, on the default registry (served at /metrics). */
export const reconciliationMetrics = {
  /** Above 0: status events were missed (stream full or too old for retention's outage, an event dropped). */
  reconciled: new Counter({
    name: 'retention_schedules_reconciled_total',
    help: 'Expiry schedules the reconciliation with orders added because no status event had scheduled the order (events were missed)',
  }),
  read: new Counter({
    name: 'retention_reconciliation_orders_read_total',
    help: 'Orders whose expiry the reconciliation read from orders (each once across the replicas)',
  }),
  /** Above 0: `failed` status events were missed; those orders' objects are deleted a grace period after their failure. */
  failedReconciled: new Counter({
    name: 'retention_failed_orders_reconciled_total',
    help: "Failed orders whose objects' early deletion the reconciliation with orders scheduled because no failed status event had (events were missed)",
  }),
  failedRead: new Counter({
    name: 'retention_failed_reconciliation_orders_read_total',
    help: 'Failed orders the reconciliation of failed orders read from orders (each once across the replicas)',
  }),
};

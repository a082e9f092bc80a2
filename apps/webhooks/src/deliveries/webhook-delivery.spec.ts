import { WebhookDelivery } from './webhook-delivery';
import { StoredEvent } from './webhook-payload';

const at = new Date('2026-05-01T10:00:00.000Z');
const failed = { success: false, statusCode: 500, error: 'HTTP 500' };
const ok = { success: true, statusCode: 200, error: null };

describe('WebhookDelivery', () => {
  it('an order event becomes one PENDING delivery per endpoint, due at once', () => {
    const event: StoredEvent = {
      eventId: 'e-1',
      eventType: 'order.watermarkEmbed.completed',
      orderId: '5',
      occurredAt: '2026-05-01T09:59:00.000Z',
      data: { orderId: '5' },
      download: null,
      links: null,
    };
    const deliveries = WebhookDelivery.enqueue('9', 'source-1', event, [3, 4], at);
    expect(deliveries.map((delivery) => [delivery.webhookId, delivery.status, delivery.nextAttemptAt, delivery.createdAt])).toEqual([
      [3, 'PENDING', at, at],
      [4, 'PENDING', at, at],
    ]);
    expect(deliveries[0]).toMatchObject({ accountId: '9', sourceEventId: 'source-1', eventId: 'e-1', orderId: '5', occurredAt: new Date(event.occurredAt) });
  });

  it('completes a delivery that reaches SUCCESS or FAILED, and says so only when its status changes', () => {
    const success = new WebhookDelivery({ status: 'PENDING', roundAttempts: 0, round: 0 }).attempt('automatic', ok, at);
    expect(success.record).toMatchObject({ status: 'SUCCESS', completedAt: at, countsForRound: true });
    expect(success.events).toEqual([{ kind: 'finished', status: 'SUCCESS' }]);

    const retried = new WebhookDelivery({ status: 'PENDING', roundAttempts: 0, round: 0 }).attempt('automatic', failed, at);
    expect(retried.record).toMatchObject({ status: 'PENDING', completedAt: null, nextAttemptAt: new Date(at.getTime() + 1000) });
    expect(retried.events).toEqual([]);

    const lastOfRound = new WebhookDelivery({ status: 'PENDING', roundAttempts: 6, round: 1 }).attempt('automatic', failed, at);
    expect(lastOfRound.record).toMatchObject({ status: 'FAILED', completedAt: at, nextAttemptAt: null });
    expect(lastOfRound.events).toEqual([{ kind: 'finished', status: 'FAILED' }]);

    const manualAgain = new WebhookDelivery({ status: 'FAILED', roundAttempts: 7, round: 0 }).attempt('manual', failed, at);
    expect(manualAgain.record).toMatchObject({ status: 'FAILED', countsForRound: false });
    expect(manualAgain.events).toEqual([]);
  });

  it('tells the owner once, when the last immediate retry of the first round fails', () => {
    const kinds = (roundAttempts: number, round: number) =>
      new WebhookDelivery({ status: 'PENDING', roundAttempts, round }).attempt('automatic', failed, at).events.map((event) => event.kind);
    expect([0, 1, 2, 3, 4].map((attempts) => kinds(attempts, 0))).toEqual([[], [], [], ['initialDeliveryFailed'], []]);
    expect(kinds(3, 1)).toEqual([]);
  });

  it('a new round makes a FAILED delivery PENDING again, due now', () => {
    expect(WebhookDelivery.newRound(at)).toEqual({ status: 'PENDING', nextAttemptAt: at, completedAt: null });
  });
});

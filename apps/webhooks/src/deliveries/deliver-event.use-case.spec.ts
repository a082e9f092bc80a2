import { ManualClock } from '@cp/clock';
import { ObjectStorage } from '@cp/storage';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { SecretCipher } from '../endpoints/secret-cipher';
import { NotifyDeliveryFailureUseCase } from '../notifications/notify-delivery-failure.use-case';
import { DeliverEventUseCase } from './deliver-event.use-case';
import { ClaimedDelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { AttemptRecord } from './webhook-delivery';
import { SendOutcome, SendRequest, WebhookHttpSender } from './webhook-http-sender';
import { serviceSignature } from './webhook-signer';

describe('deliver one event', () => {
  const cipher = new SecretCipher(Buffer.alloc(32, 1));
  const secret = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtMTIzNA==';
  const clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  let records: AttemptRecord[];
  let sent: SendRequest[];
  let notices: number;
  let nextOutcome: SendOutcome;

  const useCase = new DeliverEventUseCase(
    { recordAttempt: async (_claim: ClaimedDelivery, record: AttemptRecord) => (records.push(record), true), release: async () => undefined } as unknown as WebhookDeliveriesRepository,
    {
      findById: async () => ({ id: 3, accountId: '9', name: 'main', url: 'https://hooks.example.com/', secretCiphertext: cipher.encrypt(secret, '9') }),
    } as unknown as WebhookEndpointsRepository,
    cipher,
    { send: async (request: SendRequest) => (sent.push(request), nextOutcome) } as unknown as WebhookHttpSender,
    { presignGet: async (_bucket: string, key: string, seconds: number) => `https://s3.example.com/${key}?X-Amz-Expires=${seconds}` } as unknown as ObjectStorage,
    { execute: async () => ((notices += 1), true) } as unknown as NotifyDeliveryFailureUseCase,
    clock,
    { publicBaseUrl: 'https://api.example.com' },
  );

  const claim = (overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
    id: '1',
    webhookId: 3,
    accountId: '9',
    eventId: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    eventType: 'order.watermarkEmbed.completed',
    occurredAt: '2026-05-01T09:59:00.000Z',
    data: { orderId: '5', status: 'complete', fileCount: 1 },
    download: { bucket: 'out', key: '9/5/out.png', fileName: 'out.png' },
    links: null,
    status: 'PENDING',
    attempts: 0,
    roundAttempts: 0,
    round: 0,
    leaseToken: 'lease',
    ...overrides,
  });
  const failure: SendOutcome = { success: false, statusCode: 500, error: 'HTTP 500', durationMs: 3, kind: 'http_error' };
  const success: SendOutcome = { success: true, statusCode: 200, error: null, durationMs: 3, kind: 'success' };

  beforeEach(() => {
    records = [];
    sent = [];
    notices = 0;
  });

  it('signs the exact body it sends, with a fresh 1-hour download URL', async () => {
    nextOutcome = success;
    const result = await useCase.execute(claim(), 'automatic');
    expect(result.status).toBe('SUCCESS');
    const [request] = sent;
    expect(JSON.parse(request.body)).toMatchObject({ eventId: claim().eventId, data: { downloadUrl: 'https://s3.example.com/9/5/out.png?X-Amz-Expires=3600' } });
    expect(request.headers['X-Service-Signature']).toBe(serviceSignature(secret, request.body));
    expect(records[0]).toMatchObject({ status: 'SUCCESS', nextAttemptAt: null, statusCode: 200, countsForRound: true });
  });

  it("presigns each link of an event into its field (an AI detection heatmap), and no downloadUrl for types without one", async () => {
    nextOutcome = success;
    await useCase.execute(
      claim({
        eventType: 'order.aiDetection.completed',
        data: { orderId: '5', status: 'complete', probability: 0.9, heatmapUrl: null, overlayUrl: null },
        download: null,
        links: [{ field: 'heatmapUrl', object: { bucket: 'out', key: '9/5/h.webp', fileName: 'h.webp' } }],
      }),
      'automatic',
    );
    const data = (JSON.parse(sent[0].body) as { data: Record<string, unknown> }).data;
    expect(data).toEqual({ orderId: '5', status: 'complete', probability: 0.9, heatmapUrl: 'https://s3.example.com/9/5/h.webp?X-Amz-Expires=3600', overlayUrl: null });
  });

  it("anti-AI results: the downloadUrl is the gateway's results route relaying the presigned read (opt-out headers)", async () => {
    nextOutcome = success;
    await useCase.execute(claim({ eventType: 'order.antiAi.completed' }), 'automatic');
    const data = (JSON.parse(sent[0].body) as { data: Record<string, unknown> }).data;
    expect(data.downloadUrl).toBe('https://api.example.com/api/v2/results/9/5/out.png?X-Amz-Expires=3600');
  });

  it('adds downloadUrl only to the completions of types whose webhook carries one (the catalog), never to failures', async () => {
    nextOutcome = success;
    for (const eventType of ['order.watermarkEmbed.failed', 'order.watermarkExtract.completed'] as const) {
      await useCase.execute(claim({ eventType }), 'automatic');
    }
    expect(sent.map((request) => (JSON.parse(request.body) as { data: Record<string, unknown> }).data)).toEqual([
      claim().data,
      claim().data,
    ]);
  });

  it('schedules the next automatic attempt from the schedule, measured from the failed attempt', async () => {
    nextOutcome = failure;
    const expected = [1000, 2000, 4000, 1_800_000, 7_200_000, 14_400_000];
    for (const [index, delay] of expected.entries()) {
      await useCase.execute(claim({ roundAttempts: index }), 'automatic');
      expect(records[index]).toMatchObject({ status: 'PENDING', nextAttemptAt: new Date(clock.nowMs() + delay) });
    }
    await useCase.execute(claim({ roundAttempts: 6 }), 'automatic');
    expect(records[6]).toMatchObject({ status: 'FAILED', nextAttemptAt: null });
  });

  it('tells the owner when the fourth attempt (end of the immediate retries) of a first round fails', async () => {
    nextOutcome = failure;
    await useCase.execute(claim({ roundAttempts: 2 }), 'automatic');
    expect(notices).toBe(0);
    await useCase.execute(claim({ roundAttempts: 3 }), 'automatic');
    expect(notices).toBe(1);
    await useCase.execute(claim({ roundAttempts: 3, round: 1 }), 'automatic');
    expect(notices).toBe(1);
    await useCase.execute(claim({ roundAttempts: 3 }), 'manual');
    expect(notices).toBe(1);
  });

  it('a failed manual attempt keeps a pending schedule and leaves a finished event FAILED', async () => {
    nextOutcome = failure;
    await useCase.execute(claim({ status: 'PENDING', roundAttempts: 5 }), 'manual');
    expect(records[0]).toMatchObject({ status: 'PENDING', nextAttemptAt: 'keep', countsForRound: false });
    await useCase.execute(claim({ status: 'SUCCESS' }), 'manual');
    expect(records[1]).toMatchObject({ status: 'FAILED', nextAttemptAt: null });
  });
});

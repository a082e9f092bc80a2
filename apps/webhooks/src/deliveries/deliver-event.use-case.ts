import { Clock } from '@cp/clock';
import { orderTypeEntry, resultsCarryOptOut, WebhookDeliveryStatus } from '@cp/contracts';
import { ObjectStorage, resultUrlThroughGateway } from '@cp/storage';
import { contextFromTraceparent, inSpan, orderAttributes, SpanKind } from '@cp/tracing';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { SecretCipher } from '../endpoints/secret-cipher';
import { NotifyDeliveryFailureUseCase } from '../notifications/notify-delivery-failure.use-case';
import { deliveryMetrics } from './delivery-metrics';
import { ClaimedDelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { AttemptTrigger, WebhookDelivery } from './webhook-delivery';
import { SendOutcome, WebhookHttpSender } from './webhook-http-sender';
import { renderPayload } from './webhook-payload';
import { signatureHeaders } from './webhook-signer';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';

/** Spec 8: the webhook `downloadUrl` is valid 1 hour. */
export const DOWNLOAD_URL_SECONDS = 3600;

export interface AttemptResult {
  outcome: SendOutcome;
  status: WebhookDeliveryStatus;
  /** False when the endpoint is gone or the lease was lost, so nothing was recorded. */
  recorded: boolean;
}

/**
 * One delivery attempt of a claimed delivery: render and sign the body, POST it, record the outcome and the
 * next step of the retry schedule, and tell the owner when the initial delivery failed.
 */
@Injectable()
export class DeliverEventUseCase {
  private readonly logger = new Logger(DeliverEventUseCase.name);

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly cipher: SecretCipher,
    private readonly sender: WebhookHttpSender,
    private readonly storage: ObjectStorage,
    private readonly notifier: NotifyDeliveryFailureUseCase,
    private readonly clock: Clock,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: Pick<WebhooksSettings, 'publicBaseUrl'>,
  ) {}

  /** One attempt, in a span of its own: the order, the account, the event type and the outcome (never the URL's secret or the body). */
  execute(claim: ClaimedDelivery, trigger: AttemptTrigger): Promise<AttemptResult> {
    const orderId = claim.data.orderId;
    const attributes = {
      ...orderAttributes({ orderId: typeof orderId === 'string' ? orderId : undefined, accountId: claim.accountId }),
      'cp.webhook.event_type': claim.eventType,
      'cp.webhook.trigger': trigger,
      'cp.webhook.attempt': claim.attempts + 1,
    };
    // The dispatcher's loop has no trace: an automatic attempt continues the event's (the order's), stored with the delivery.
    const parent = trigger === 'automatic' && claim.traceparent ? contextFromTraceparent(claim.traceparent) : undefined;
    return inSpan('webhook deliver', { kind: SpanKind.CLIENT, attributes, parent }, async (span) => {
      const result = await this.attempt(claim, trigger);
      span.setAttribute('cp.webhook.outcome', result.outcome.kind);
      return result;
    });
  }

  private async attempt(claim: ClaimedDelivery, trigger: AttemptTrigger): Promise<AttemptResult> {
    const endpoint = await this.endpoints.findById(claim.webhookId);
    if (!endpoint) {
      await this.deliveries.release(claim);
      return {
        outcome: { success: false, statusCode: null, error: 'webhook deleted', durationMs: 0, kind: 'network_error' },
        status: claim.status,
        recorded: false,
      };
    }
    const secret = this.cipher.decrypt(endpoint.secretCiphertext, endpoint.accountId);
    const body = renderPayload(claim, await this.presignedFields(claim));
    const headers = signatureHeaders(secret, claim.eventId, this.clock.now(), body);
    const outcome = await this.sender.send({ url: endpoint.url, body, headers: { ...headers } });
    deliveryMetrics.attempts.inc({ outcome: outcome.kind, trigger });

    const { record, events } = new WebhookDelivery(claim).attempt(trigger, outcome, this.clock.now());
    const recorded = await this.deliveries.recordAttempt(claim, record);
    if (!recorded) {
      this.logger.warn({ deliveryId: claim.id }, 'lease lost or delivery deleted during the attempt; outcome not recorded');
      return { outcome, status: record.status, recorded };
    }
    this.logger.log(
      { deliveryId: claim.id, webhookId: claim.webhookId, eventId: claim.eventId, trigger, outcome: outcome.kind, statusCode: outcome.statusCode, status: record.status },
      'webhook attempt',
    );
    for (const event of events) {
      if (event.kind === 'finished') {
        deliveryMetrics.deliveries.inc({ outcome: event.status === 'SUCCESS' ? 'success' : 'failed' });
      } else {
        await this.notifier.execute({
          accountId: claim.accountId,
          webhookId: endpoint.id,
          webhookName: endpoint.name,
          webhookUrl: endpoint.url,
          eventId: claim.eventId,
          eventType: claim.eventType,
          error: outcome.error,
          statusCode: outcome.statusCode,
        });
      }
    }
    return { outcome, status: record.status, recorded };
  }

  /**
   * Fresh 1-hour URLs at every attempt: `downloadUrl` of the completions of the types whose webhook carries one
   * (the catalog of order types; null without a stored result; other events have none) and each link of the event.
   */
  private async presignedFields(claim: ClaimedDelivery): Promise<Record<string, string | null>> {
    const fields: Record<string, string | null> = {};
    // `order.<type>.completed` / `order.<type>.failed`
    const [, orderType, outcome] = claim.eventType.split('.');
    if (outcome === 'completed' && orderTypeEntry(orderType)?.webhookDownloadUrl) {
      const presigned = claim.download
        ? await this.storage.presignGet(claim.download.bucket, claim.download.key, DOWNLOAD_URL_SECONDS, claim.download.fileName)
        : null;
      // Some types' results are served by the gateway with the opt-out headers.
      fields.downloadUrl = presigned && resultsCarryOptOut(orderType) ? resultUrlThroughGateway(presigned, this.settings.publicBaseUrl) : presigned;
    }
    for (const link of claim.links ?? []) {
      fields[link.field] = await this.storage.presignGet(link.object.bucket, link.object.key, DOWNLOAD_URL_SECONDS, link.object.fileName);
    }
    return fields;
  }
}

import { Clock } from '@cp/clock';
import {
  CallerContext,
  CreatedWebhookView,
  DeletedWebhookView,
  DomainException,
  ErrorCode,
  WebhookDeliveryStatus,
  WebhookEventPageView,
  WebhookEventRetryView,
  WebhookRetryFailedView,
  WebhookView,
} from '@cp/contracts';
import { ErasedScopesRepository, TransactionRepository } from '@cp/database';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RetryEventUseCase } from '../deliveries/retry-event.use-case';
import { RetryFailedRangeUseCase } from '../deliveries/retry-failed-range.use-case';
import { WebhookDeliveriesRepository } from '../deliveries/webhook-deliveries.repository';
import { WebhookDeliveryEntity } from '../deliveries/webhook-delivery.entity';
import { generateWebhookSecret, SecretCipher } from '../endpoints/secret-cipher';
import { WebhookEndpointEntity } from '../endpoints/webhook-endpoint.entity';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { deliveryScopeOf, WebhookOwner } from '../endpoints/webhook-mode';
import { checkWebhookUrl } from '../endpoints/webhook-url-policy';
import { WEBHOOKS_SETTINGS, WebhooksSettings } from '../webhooks.config';

function toView(endpoint: WebhookEndpointEntity): WebhookView {
  return { id: endpoint.id, name: endpoint.name, url: endpoint.url, isActive: endpoint.isActive, updatedAt: endpoint.updatedAt.toISOString() };
}

function toEventView(delivery: WebhookDeliveryEntity) {
  return {
    id: Number(delivery.id),
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    orderId: delivery.orderId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    error: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.status === 'PENDING' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
  };
}

/** The owner a caller reads and writes webhooks as: its account and its key mode. */
function ownerOf(caller: CallerContext): WebhookOwner {
  return { accountId: caller.accountId, mode: caller.mode };
}

/**
 * Spec 4.16, scoped to the caller's account and key mode: a webhook belongs to the mode of the key that created
 * it, and one of the other mode answers exactly like an unknown id (docs/webhooks.md, "Live and test webhooks").
 * A test key also sees and resends only test orders' events.
 */
@Injectable()
export class WebhookManagementService {
  private readonly logger = new Logger(WebhookManagementService.name);

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly erased: ErasedScopesRepository,
    private readonly cipher: SecretCipher,
    private readonly retryEvent: RetryEventUseCase,
    private readonly retryFailedRange: RetryFailedRangeUseCase,
    private readonly clock: Clock,
    private readonly transactions: TransactionRepository,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: WebhooksSettings,
  ) {}

  /**
   * At most `maxWebhooksPerMode` webhooks per account in each key mode: every order event becomes one delivery per
   * webhook, so without a ceiling one (free, test) order would fan out to any number of requests to any host. The
   * owner's lock makes the count and the insert one step: two creations at the limit never both pass.
   * `name` and `url` arrive trimmed: the contract trims them before validating them (an empty name is refused there).
   */
  async create(caller: CallerContext, name: string, url: string): Promise<CreatedWebhookView> {
    const target = this.validUrl(url);
    const secret = generateWebhookSecret();
    const owner = ownerOf(caller);
    const endpoint = await this.transactions.run(async (tx) => {
      // A key the gateway authenticated just before its account's erasure: no webhook for an erased account.
      if (await this.erased.isErased(tx, caller.accountId)) {
        throw new DomainException(ErrorCode.AUTH_NOT_AUTHENTICATED, 'the account was erased');
      }
      await this.endpoints.lockOwner(tx, owner);
      const count = await this.endpoints.countOwned(tx, owner);
      if (count >= this.settings.maxWebhooksPerMode) {
        throw new DomainException(ErrorCode.WEBHOOK_LIMIT_REACHED, `account ${caller.accountId} has ${count} ${caller.mode} webhooks (limit ${this.settings.maxWebhooksPerMode})`);
      }
      return this.endpoints.create(tx, {
        owner,
        name,
        url: target,
        secretCiphertext: this.cipher.encrypt(secret, caller.accountId),
        at: this.clock.now(),
      });
    });
    this.logger.log({ accountId: caller.accountId, mode: caller.mode, webhookId: endpoint.id }, 'webhook created');
    return { ...toView(endpoint), secret };
  }

  async update(caller: CallerContext, webhookId: number, changes: { name: string; url: string; isActive?: boolean }): Promise<WebhookView> {
    const url = this.validUrl(changes.url);
    const updated = await this.endpoints.update(ownerOf(caller), webhookId, {
      name: changes.name,
      url,
      isActive: changes.isActive,
      at: this.clock.now(),
    });
    if (!updated) {
      throw this.notFound(webhookId);
    }
    return toView(updated);
  }

  async list(caller: CallerContext): Promise<WebhookView[]> {
    return (await this.endpoints.listOwned(ownerOf(caller))).map(toView);
  }

  async get(caller: CallerContext, webhookId: number): Promise<WebhookView> {
    return toView(await this.owned(caller, webhookId));
  }

  async delete(caller: CallerContext, webhookId: number): Promise<DeletedWebhookView> {
    if (!(await this.endpoints.delete(ownerOf(caller), webhookId))) {
      throw this.notFound(webhookId);
    }
    return { id: webhookId, deleted: true };
  }

  async listEvents(caller: CallerContext, webhookId: number, page: number, limit: number, status?: WebhookDeliveryStatus): Promise<WebhookEventPageView> {
    await this.owned(caller, webhookId);
    const [rows, total] = await this.deliveries.page(webhookId, page, limit, deliveryScopeOf(caller.mode), status);
    return { items: rows.map(toEventView), page, limit, total };
  }

  async retry(caller: CallerContext, webhookId: number, eventId: string): Promise<WebhookEventRetryView> {
    const endpoint = await this.owned(caller, webhookId);
    return this.retryEvent.execute(webhookId, eventId, deliveryScopeOf(caller.mode), endpoint.isActive);
  }

  async retryFailed(caller: CallerContext, webhookId: number, fromDate: string, toDate: string): Promise<WebhookRetryFailedView> {
    await this.owned(caller, webhookId);
    return this.retryFailedRange.execute(webhookId, fromDate, toDate, deliveryScopeOf(caller.mode));
  }

  private async owned(caller: CallerContext, webhookId: number): Promise<WebhookEndpointEntity> {
    const endpoint = await this.endpoints.findOwned(ownerOf(caller), webhookId);
    if (!endpoint) {
      throw this.notFound(webhookId);
    }
    return endpoint;
  }

  private validUrl(raw: string): string {
    const check = checkWebhookUrl(raw, this.settings);
    if (!check.ok) {
      throw new DomainException(ErrorCode.VALIDATION_FAILED, `webhook url refused: ${check.reason}`);
    }
    return check.url.toString();
  }

  /** One answer for an unknown id, another account's and the other key mode's webhook: none tells that it exists. */
  private notFound(webhookId: number): DomainException {
    return new DomainException(ErrorCode.RESOURCE_NOT_FOUND, `webhook ${webhookId} not found for the caller`);
  }
}

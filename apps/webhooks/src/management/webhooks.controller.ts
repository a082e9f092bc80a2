import {
  CreatedWebhookView,
  CreateWebhookCommand,
  DeletedWebhookView,
  ListWebhookEventsQuery,
  ListWebhooksQuery,
  RetryFailedWebhookEventsCommand,
  RetryWebhookEventCommand,
  UpdateWebhookCommand,
  WebhookEventPageView,
  WebhookEventRetryView,
  WebhookRefQuery,
  WebhookRetryFailedView,
  Rpcs,
  WebhookView,
} from '@cp/contracts';
import { RpcHandler, RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { WebhookManagementService } from './webhook-management.service';

@RpcHandlers()
@Controller()
export class WebhooksRpcController {
  constructor(private readonly webhooks: WebhookManagementService) {}

  @RpcHandler(Rpcs.webhooksCreate)
  create(command: CreateWebhookCommand): Promise<CreatedWebhookView> {
    return this.webhooks.create(command.caller, command.name, command.url);
  }

  @RpcHandler(Rpcs.webhooksUpdate)
  update(command: UpdateWebhookCommand): Promise<WebhookView> {
    return this.webhooks.update(command.caller, command.webhookId, { name: command.name, url: command.url, isActive: command.isActive });
  }

  @RpcHandler(Rpcs.webhooksList)
  list(query: ListWebhooksQuery): Promise<WebhookView[]> {
    return this.webhooks.list(query.caller);
  }

  @RpcHandler(Rpcs.webhooksGet)
  get(query: WebhookRefQuery): Promise<WebhookView> {
    return this.webhooks.get(query.caller, query.webhookId);
  }

  @RpcHandler(Rpcs.webhooksDelete)
  delete(command: WebhookRefQuery): Promise<DeletedWebhookView> {
    return this.webhooks.delete(command.caller, command.webhookId);
  }

  @RpcHandler(Rpcs.webhooksListEvents)
  listEvents(query: ListWebhookEventsQuery): Promise<WebhookEventPageView> {
    return this.webhooks.listEvents(query.caller, query.webhookId, query.page, query.limit, query.status);
  }

  @RpcHandler(Rpcs.webhooksRetryEvent)
  retryEvent(command: RetryWebhookEventCommand): Promise<WebhookEventRetryView> {
    return this.webhooks.retry(command.caller, command.webhookId, command.eventId);
  }

  @RpcHandler(Rpcs.webhooksRetryFailed)
  retryFailed(command: RetryFailedWebhookEventsCommand): Promise<WebhookRetryFailedView> {
    return this.webhooks.retryFailed(command.caller, command.webhookId, command.fromDate, command.toDate);
  }
}

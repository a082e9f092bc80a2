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
  WebhookRpcPatterns,
  WebhookView,
} from '@cp/contracts';
import { RpcHandlers } from '@cp/messaging';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WebhookManagementService } from './webhook-management.service';

@RpcHandlers()
@Controller()
export class WebhooksRpcController {
  constructor(private readonly webhooks: WebhookManagementService) {}

  @MessagePattern(WebhookRpcPatterns.create)
  create(@Payload() command: CreateWebhookCommand): Promise<CreatedWebhookView> {
    return this.webhooks.create(command.caller, command.name, command.url);
  }

  @MessagePattern(WebhookRpcPatterns.update)
  update(@Payload() command: UpdateWebhookCommand): Promise<WebhookView> {
    return this.webhooks.update(command.caller, command.webhookId, { name: command.name, url: command.url, isActive: command.isActive });
  }

  @MessagePattern(WebhookRpcPatterns.list)
  list(@Payload() query: ListWebhooksQuery): Promise<WebhookView[]> {
    return this.webhooks.list(query.caller);
  }

  @MessagePattern(WebhookRpcPatterns.get)
  get(@Payload() query: WebhookRefQuery): Promise<WebhookView> {
    return this.webhooks.get(query.caller, query.webhookId);
  }

  @MessagePattern(WebhookRpcPatterns.delete)
  delete(@Payload() command: WebhookRefQuery): Promise<DeletedWebhookView> {
    return this.webhooks.delete(command.caller, command.webhookId);
  }

  @MessagePattern(WebhookRpcPatterns.listEvents)
  listEvents(@Payload() query: ListWebhookEventsQuery): Promise<WebhookEventPageView> {
    return this.webhooks.listEvents(query.caller, query.webhookId, query.page, query.limit, query.status);
  }

  @MessagePattern(WebhookRpcPatterns.retryEvent)
  retryEvent(@Payload() command: RetryWebhookEventCommand): Promise<WebhookEventRetryView> {
    return this.webhooks.retry(command.caller, command.webhookId, command.eventId);
  }

  @MessagePattern(WebhookRpcPatterns.retryFailed)
  retryFailed(@Payload() command: RetryFailedWebhookEventsCommand): Promise<WebhookRetryFailedView> {
    return this.webhooks.retryFailed(command.caller, command.webhookId, command.fromDate, command.toDate);
  }
}

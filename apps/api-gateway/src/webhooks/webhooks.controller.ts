import {
  CallerContext,
  CreatedWebhookView,
  CreateWebhookBody,
  CreateWebhookCommand,
  DeletedWebhookView,
  DomainException,
  ErrorCode,
  ListWebhookEventsParams,
  ListWebhookEventsQuery,
  ListWebhooksQuery,
  RetryFailedWebhookEventsBody,
  RetryFailedWebhookEventsCommand,
  RetryWebhookEventCommand,
  UpdateWebhookBody,
  UpdateWebhookCommand,
  WEBHOOK_EVENT_ID_PATTERN,
  WEBHOOK_ID_MAX,
  WEBHOOK_ID_PATTERN,
  WebhookEventPageView,
  WebhookEventRetryView,
  WebhookRefQuery,
  WebhookRetryFailedView,
  WebhookRpcPatterns,
  WebhookView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller } from '../auth/caller';

/** The manual retry makes one delivery attempt (up to 5 s) and may first wait for one in flight. */
const RETRY_RPC_TIMEOUT_MS = 20_000;

/** A path id that is not a webhook id at all names no webhook. */
function webhookIdOf(raw: string): number {
  const id = WEBHOOK_ID_PATTERN.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id > WEBHOOK_ID_MAX) {
    throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
  }
  return id;
}

@ApiTags('webhooks (v2)')
@Controller('api/v2/orders/webhooks')
export class WebhooksController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @ApiOperation({ summary: 'Create a webhook; the signing secret is shown only in this response (spec 4.16)' })
  create(@Caller() caller: CallerContext, @Body() body: CreateWebhookBody): Promise<CreatedWebhookView> {
    const command: CreateWebhookCommand = { caller, name: body.name, url: body.url };
    return this.rpc.request<CreatedWebhookView>(WebhookRpcPatterns.create, command);
  }

  @Get()
  @ApiOperation({ summary: "List the account's webhooks" })
  list(@Caller() caller: CallerContext): Promise<WebhookView[]> {
    const query: ListWebhooksQuery = { caller };
    return this.rpc.request<WebhookView[]>(WebhookRpcPatterns.list, query);
  }

  @Get(':webhookId')
  @ApiOperation({ summary: 'Get a webhook (never its secret)' })
  get(@Caller() caller: CallerContext, @Param('webhookId') webhookId: string): Promise<WebhookView> {
    const query: WebhookRefQuery = { caller, webhookId: webhookIdOf(webhookId) };
    return this.rpc.request<WebhookView>(WebhookRpcPatterns.get, query);
  }

  @Put(':webhookId')
  @ApiOperation({ summary: 'Update name and URL (and optionally isActive)' })
  update(@Caller() caller: CallerContext, @Param('webhookId') webhookId: string, @Body() body: UpdateWebhookBody): Promise<WebhookView> {
    const command: UpdateWebhookCommand = { caller, webhookId: webhookIdOf(webhookId), name: body.name, url: body.url, isActive: body.isActive };
    return this.rpc.request<WebhookView>(WebhookRpcPatterns.update, command);
  }

  @Delete(':webhookId')
  @ApiOperation({ summary: 'Delete a webhook, its pending deliveries and its delivery log' })
  delete(@Caller() caller: CallerContext, @Param('webhookId') webhookId: string): Promise<DeletedWebhookView> {
    const command: WebhookRefQuery = { caller, webhookId: webhookIdOf(webhookId) };
    return this.rpc.request<DeletedWebhookView>(WebhookRpcPatterns.delete, command);
  }

  @Get(':webhookId/events')
  @ApiOperation({ summary: 'Delivery events, newest first, paginated (page, limit ≤ 100, optional status)' })
  events(
    @Caller() caller: CallerContext,
    @Param('webhookId') webhookId: string,
    @Query() params: ListWebhookEventsParams,
  ): Promise<WebhookEventPageView> {
    const query: ListWebhookEventsQuery = {
      caller,
      webhookId: webhookIdOf(webhookId),
      page: params.page ?? 1,
      limit: params.limit ?? 20,
      ...(params.status ? { status: params.status } : {}),
    };
    return this.rpc.request<WebhookEventPageView>(WebhookRpcPatterns.listEvents, query);
  }

  // Declared before `:eventId/retry` so the literal segment wins.
  @Post(':webhookId/events/retry-failed')
  @HttpCode(200)
  @ApiOperation({ summary: 'Queue every FAILED event created in a range of up to 7 days for delivery again' })
  retryFailed(
    @Caller() caller: CallerContext,
    @Param('webhookId') webhookId: string,
    @Body() body: RetryFailedWebhookEventsBody,
  ): Promise<WebhookRetryFailedView> {
    const command: RetryFailedWebhookEventsCommand = { caller, webhookId: webhookIdOf(webhookId), fromDate: body.fromDate, toDate: body.toDate };
    return this.rpc.request<WebhookRetryFailedView>(WebhookRpcPatterns.retryFailed, command);
  }

  @Post(':webhookId/events/:eventId/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resend one delivery event now; the response is the outcome of that attempt' })
  retryEvent(
    @Caller() caller: CallerContext,
    @Param('webhookId') webhookId: string,
    @Param('eventId') eventId: string,
  ): Promise<WebhookEventRetryView> {
    const id = webhookIdOf(webhookId);
    if (!WEBHOOK_EVENT_ID_PATTERN.test(eventId)) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const command: RetryWebhookEventCommand = { caller, webhookId: id, eventId };
    return this.rpc.request<WebhookEventRetryView>(WebhookRpcPatterns.retryEvent, command, RETRY_RPC_TIMEOUT_MS);
  }
}

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
  Rpcs,
  UpdateWebhookBody,
  UpdateWebhookCommand,
  WEBHOOK_EVENT_ID_PATTERN,
  WEBHOOK_ID_MAX,
  WEBHOOK_ID_PATTERN,
  WebhookEventPageView,
  WebhookEventRetryView,
  WebhookRefQuery,
  WebhookRetryFailedView,
  WebhookView,
} from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors } from '../http/api-responses.decorator';
import { Caller } from '../auth/caller';
import { data, DataEnvelope } from '../http/data-envelope';
import { NoBody } from '../http/no-body.decorator';

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

const WEBHOOK_ID_PARAM = { name: 'webhookId', schema: { type: 'integer', minimum: 1, maximum: WEBHOOK_ID_MAX }, example: 7 } as const;

@ApiTags('webhooks (v2)')
@Controller('api/v2/orders/webhooks')
export class WebhooksController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Create a webhook (spec 4.16)',
    description:
      'The signing secret is shown only in this response. Deliveries carry `X-Service-Signature` (hex HMAC-SHA-256 of the raw body) and the Standard Webhooks headers. ' +
      "The webhook belongs to the key's mode: created with a test key, it receives only test orders' events and only test keys see it.",
  })
  @ApiBody({ type: CreateWebhookBody, examples: { cms: { value: { name: 'orders to the CMS', url: 'https://hooks.example.com/content-protection' } } } })
  @ApiData('CreatedWebhook', {
    status: 201,
    description: 'the webhook with its secret',
    headers: { Location: { description: 'the new webhook: `/api/v2/orders/webhooks/{id}`', schema: { type: 'string', example: '/api/v2/orders/webhooks/7' } } },
  })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_LIMIT_REACHED, ErrorCode.PAYLOAD_TOO_LARGE)
  async create(@Caller() caller: CallerContext, @Body() body: CreateWebhookBody, @Res({ passthrough: true }) response: Response): Promise<DataEnvelope<CreatedWebhookView>> {
    const command: CreateWebhookCommand = { caller, name: body.name, url: body.url };
    const created = await this.rpc.request(Rpcs.webhooksCreate, command);
    // A 201 names what it created (RFC 9110 15.3.2); without Location it would name the collection it was posted to.
    response.setHeader('Location', `/api/v2/orders/webhooks/${created.id}`);
    return data(created);
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhooks', summary: "List the account's webhooks of the calling key's mode (live or test)" })
  @ApiData('Webhook', { description: 'the webhooks', array: true })
  @ApiErrors()
  list(@Caller() caller: CallerContext): Promise<DataEnvelope<WebhookView[]>> {
    const query: ListWebhooksQuery = { caller };
    return data(this.rpc.request(Rpcs.webhooksList, query));
  }

  @Get(':webhookId')
  @ApiOperation({ operationId: 'getWebhook', summary: 'Get a webhook (never its secret)' })
  @ApiParam(WEBHOOK_ID_PARAM)
  @ApiData('Webhook', { description: 'the webhook' })
  @ApiErrors(ErrorCode.RESOURCE_NOT_FOUND)
  get(@Caller() caller: CallerContext, @Param('webhookId') webhookId: string): Promise<DataEnvelope<WebhookView>> {
    const query: WebhookRefQuery = { caller, webhookId: webhookIdOf(webhookId) };
    return data(this.rpc.request(Rpcs.webhooksGet, query));
  }

  @Put(':webhookId')
  @ApiOperation({ operationId: 'updateWebhook', summary: 'Update name and URL (and optionally isActive)' })
  @ApiParam(WEBHOOK_ID_PARAM)
  @ApiBody({ type: UpdateWebhookBody, examples: { pause: { value: { name: 'orders to the CMS', url: 'https://hooks.example.com/content-protection', isActive: false } } } })
  @ApiData('Webhook', { description: 'the updated webhook' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  update(@Caller() caller: CallerContext, @Param('webhookId') webhookId: string, @Body() body: UpdateWebhookBody): Promise<DataEnvelope<WebhookView>> {
    const command: UpdateWebhookCommand = { caller, webhookId: webhookIdOf(webhookId), name: body.name, url: body.url, isActive: body.isActive };
    return data(this.rpc.request(Rpcs.webhooksUpdate, command));
  }

  @Delete(':webhookId')
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook, its pending deliveries and its delivery log' })
  @ApiParam(WEBHOOK_ID_PARAM)
  @ApiData('DeletedWebhook', { description: 'the webhook was deleted' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  delete(@Caller() caller: CallerContext, @Param('webhookId') webhookId: string, @NoBody() _body: undefined): Promise<DataEnvelope<DeletedWebhookView>> {
    const command: WebhookRefQuery = { caller, webhookId: webhookIdOf(webhookId) };
    return data(this.rpc.request(Rpcs.webhooksDelete, command));
  }

  @Get(':webhookId/events')
  @ApiOperation({
    operationId: 'listWebhookEvents',
    summary: 'Delivery events, newest first, paginated (page, limit ≤ 100, optional status)',
    description: "With a test key, only test orders' events.",
  })
  @ApiParam(WEBHOOK_ID_PARAM)
  @ApiData('WebhookEventPage', { description: 'one page of delivery events' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND)
  events(
    @Caller() caller: CallerContext,
    @Param('webhookId') webhookId: string,
    @Query() params: ListWebhookEventsParams,
  ): Promise<DataEnvelope<WebhookEventPageView>> {
    const query: ListWebhookEventsQuery = {
      caller,
      webhookId: webhookIdOf(webhookId),
      page: params.page ?? 1,
      limit: params.limit ?? 20,
      ...(params.status ? { status: params.status } : {}),
    };
    return data(this.rpc.request(Rpcs.webhooksListEvents, query));
  }

  // Declared before `:eventId/retry` so the literal segment wins.
  @Post(':webhookId/events/retry-failed')
  @HttpCode(200)
  @ApiOperation({ operationId: 'retryFailedWebhookEvents', summary: 'Queue every FAILED event created in a range of up to 7 days for delivery again' })
  @ApiParam(WEBHOOK_ID_PARAM)
  @ApiBody({ type: RetryFailedWebhookEventsBody, examples: { lastWeek: { value: { fromDate: '2026-11-16', toDate: '2026-11-23' } } } })
  @ApiData('WebhookRetryFailed', { description: 'how many events were queued again' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  retryFailed(
    @Caller() caller: CallerContext,
    @Param('webhookId') webhookId: string,
    @Body() body: RetryFailedWebhookEventsBody,
  ): Promise<DataEnvelope<WebhookRetryFailedView>> {
    const command: RetryFailedWebhookEventsCommand = { caller, webhookId: webhookIdOf(webhookId), fromDate: body.fromDate, toDate: body.toDate };
    return data(this.rpc.request(Rpcs.webhooksRetryFailed, command));
  }

  @Post(':webhookId/events/:eventId/retry')
  @HttpCode(200)
  @ApiOperation({ operationId: 'retryWebhookEvent', summary: 'Resend one delivery event now; the response is the outcome of that attempt' })
  @ApiParam(WEBHOOK_ID_PARAM)
  @ApiParam({ name: 'eventId', description: 'a delivery event `id`', schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' }, example: '1201' })
  @ApiData('WebhookEventRetry', { description: 'the outcome of the attempt' })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.RESOURCE_NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  retryEvent(
    @Caller() caller: CallerContext,
    @Param('webhookId') webhookId: string,
    @Param('eventId') eventId: string,
    @NoBody() _body: undefined,
  ): Promise<DataEnvelope<WebhookEventRetryView>> {
    const id = webhookIdOf(webhookId);
    if (!WEBHOOK_EVENT_ID_PATTERN.test(eventId)) {
      throw new DomainException(ErrorCode.RESOURCE_NOT_FOUND);
    }
    const command: RetryWebhookEventCommand = { caller, webhookId: id, eventId };
    return data(this.rpc.request(Rpcs.webhooksRetryEvent, command, RETRY_RPC_TIMEOUT_MS));
  }
}

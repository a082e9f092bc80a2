import { CreatedWebhookView, Rpcs } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import type { Response } from 'express';
import { WebhooksController } from './webhooks.controller';

const caller = { accountId: '7', mode: 'live' as const };
const created: CreatedWebhookView = { id: 12, name: 'cms', url: 'https://hooks.example.com/cp', isActive: true, updatedAt: '2026-11-29T10:00:00.000Z', secret: 'whsec_x' };

describe('webhooks HTTP controller', () => {
  // A 201 without Location names the collection it was posted to (RFC 9110 15.3.2), not the webhook it made.
  it('answers a creation with the new webhook in data and its URL in Location', async () => {
    const calls: Array<[string, object]> = [];
    const rpc = {
      request: ({ pattern }: { pattern: string }, payload: object) => {
        calls.push([pattern, payload]);
        return Promise.resolve(created);
      },
    } as unknown as RpcClient;
    const headers = new Map<string, string>();
    const response = { setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value) } as unknown as Response;
    expect(await new WebhooksController(rpc).create(caller, { name: 'cms', url: 'https://hooks.example.com/cp' }, response)).toEqual({ data: created });
    expect(calls).toEqual([[Rpcs.webhooksCreate.pattern, { caller, name: 'cms', url: 'https://hooks.example.com/cp' }]]);
    expect(headers.get('location')).toBe('/api/v2/orders/webhooks/12');
  });
});

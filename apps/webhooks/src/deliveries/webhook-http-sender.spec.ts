import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { WebhookHttpSender } from './webhook-http-sender';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

describe('webhook HTTP sender', () => {
  let server: Server;
  let port: number;
  let handler: Handler;
  const settings = { secretEncryptionKey: Buffer.alloc(32), allowHttp: true, dispatchIntervalMs: 250, maxConcurrency: 4, maxConcurrencyPerEndpoint: 2, maxConcurrencyPerAccount: 8, maxWebhooksPerMode: 20, publicBaseUrl: 'https://api.example.com', deliveryRetention: { keepMs: 30 * 24 * 3600_000, intervalMs: 600_000, batchSize: 1000 } };
  const allowed = new WebhookHttpSender({ ...settings, allowedTargetIps: ['127.0.0.1'] });
  const strict = new WebhookHttpSender({ ...settings, allowedTargetIps: [] });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => handler(request, Buffer.concat(chunks).toString('utf8'), response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('POSTs the exact body with the given headers; 2xx is success', async () => {
    let seen: { method?: string; body?: string; signature?: string; type?: string } = {};
    handler = (request, body, response) => {
      seen = { method: request.method, body, signature: request.headers['x-service-signature'] as string, type: request.headers['content-type'] };
      response.writeHead(204).end();
    };
    const outcome = await allowed.send({ url: `http://127.0.0.1:${port}/hook`, body: '{"a":"é"}', headers: { 'X-Service-Signature': 'abc' } });
    expect(outcome).toMatchObject({ success: true, statusCode: 204, error: null, kind: 'success' });
    expect(seen).toEqual({ method: 'POST', body: '{"a":"é"}', signature: 'abc', type: 'application/json' });
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    let hits = 0;
    handler = (_request, _body, response) => {
      hits += 1;
      response.writeHead(302, { Location: `http://127.0.0.1:${port}/elsewhere` }).end();
    };
    const outcome = await allowed.send({ url: `http://127.0.0.1:${port}/hook`, body: '{}', headers: {} });
    expect(outcome).toMatchObject({ success: false, statusCode: 302, kind: 'http_error' });
    expect(hits).toBe(1);
  });

  it('treats 500 as a failure with its status', async () => {
    handler = (_request, _body, response) => response.writeHead(500).end('boom');
    expect(await allowed.send({ url: `http://127.0.0.1:${port}/hook`, body: '{}', headers: {} })).toMatchObject({
      success: false,
      statusCode: 500,
      error: 'HTTP 500',
    });
  });

  it('times out a receiver that does not answer', async () => {
    handler = () => undefined;
    const outcome = await allowed.send({ url: `http://127.0.0.1:${port}/hook`, body: '{}', headers: {} }, 300);
    expect(outcome).toMatchObject({ success: false, statusCode: null, kind: 'timeout' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('refuses loopback targets that are not allow-listed, without connecting', async () => {
    let hits = 0;
    handler = (_request, _body, response) => {
      hits += 1;
      response.writeHead(200).end();
    };
    const literal = await strict.send({ url: `http://127.0.0.1:${port}/hook`, body: '{}', headers: {} });
    const byName = await strict.send({ url: `http://localhost:${port}/hook`, body: '{}', headers: {} });
    expect(literal).toMatchObject({ success: false, kind: 'blocked' });
    expect(byName).toMatchObject({ success: false, kind: 'blocked' });
    expect(hits).toBe(0);
  });
});

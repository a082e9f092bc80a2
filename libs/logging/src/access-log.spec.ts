import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createAccessLog, LoggedRequest } from './access-log';

/** A real HTTP server with the access log first, as the gateway installs it; the log lines are captured. */
async function serve(level: string): Promise<{ url: string; lines: Array<Record<string, unknown>>; close: () => Promise<void> }> {
  const lines: Array<Record<string, unknown>> = [];
  const accessLog = createAccessLog({ service: 'test-service', level }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const server: Server = createServer((request, response) => {
    accessLog(request, response, () => {
      const match = /^\/orders\/(\d+)$/.exec(request.url ?? '');
      if (match) {
        (request as LoggedRequest).params = { orderId: match[1] };
      }
      response.statusCode = request.url === '/fail' ? 503 : 200;
      response.end(JSON.stringify({ id: (request as LoggedRequest).id }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, lines, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('createAccessLog', () => {
  it('gives every request an id (the caller’s when it looks like one) and logs one line per request', async () => {
    const server = await serve('info');
    try {
      const generated = await fetch(`${server.url}/orders/42`, { headers: { 'User-Agent': 'probe/1' } });
      const body = (await generated.json()) as { id: string };
      expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.id).toBe(generated.headers.get('x-request-id'));
      const kept = await fetch(`${server.url}/other`, { headers: { 'X-Request-Id': 'client-trace-0001' } });
      await kept.arrayBuffer();
      expect(kept.headers.get('x-request-id')).toBe('client-trace-0001');
      const refused = await fetch(`${server.url}/other`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
      await refused.arrayBuffer();
      expect(refused.headers.get('x-request-id')).not.toBe('bad id with spaces');

      expect(server.lines).toHaveLength(3);
      expect(server.lines[0]).toMatchObject({
        level: 30,
        service: 'test-service',
        msg: 'request completed',
        orderId: '42',
        req: { id: body.id, method: 'GET', url: '/orders/42', userAgent: 'probe/1' },
        res: { statusCode: 200 },
      });
      expect(typeof server.lines[0].responseTime).toBe('number');
      expect(server.lines[1]).not.toHaveProperty('orderId');
      expect(server.lines[1]).toMatchObject({ req: { id: 'client-trace-0001' } });
    } finally {
      await server.close();
    }
  });

  it('logs a 5xx as an error, and nothing for health probes', async () => {
    const server = await serve('info');
    try {
      for (const path of ['/fail', '/health', '/ready', '/metrics']) {
        await (await fetch(`${server.url}${path}`)).arrayBuffer();
      }
      expect(server.lines).toHaveLength(1);
      expect(server.lines[0]).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: 503 } });
    } finally {
      await server.close();
    }
  });

  it('above info it writes no line, but still names the request', async () => {
    const server = await serve('warn');
    try {
      const response = await fetch(`${server.url}/fail`);
      await response.arrayBuffer();
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(server.lines).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('never logs a credential carried by the URL: a test-upload token is redacted, a result URL loses its presigned query and its file name', async () => {
    const server = await serve('info');
    const token = 'eyJvcmRlcklkIjoiNyIsImZpbGVJZCI6IjcxIn0.c2lnbmF0dXJlLXNlY3JldA';
    const signature = '3f1a9c0000000000000000000000000000000000000000000000000000000000';
    try {
      await (await fetch(`${server.url}/api/v2/test-uploads/${token}`, { method: 'PUT', body: 'x' })).arrayBuffer();
      await (await fetch(`${server.url}/api/v2/results/cp-outputs/5/7/outputs/1-0/a.png?X-Amz-Credential=key%2F20261101&X-Amz-Signature=${signature}`)).arrayBuffer();
      expect(server.lines.map((line) => (line.req as { url: string }).url)).toEqual(['/api/v2/test-uploads/[redacted]', '/api/v2/results/cp-outputs/5/7/outputs/1-0/[name]']);
      const written = JSON.stringify(server.lines);
      expect(written).not.toContain(token);
      expect(written).not.toContain(signature);
    } finally {
      await server.close();
    }
  });
});

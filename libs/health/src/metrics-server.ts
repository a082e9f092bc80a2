import express from 'express';
import type { Request, Response } from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register } from 'prom-client';

/**
 * Prometheus metrics on their own port (`METRICS_PORT`), never on the public API port: only `GET /metrics`,
 * anything else 404. A server of its own, outside Nest, so that no API middleware, route or filter applies.
 */
export class MetricsServer {
  private server?: Server;

  constructor(private readonly address: { host: string; port: number }) {}

  /** Listens; resolves with the bound port (the configured one, or the one chosen for port 0 in tests). */
  async start(): Promise<number> {
    const app = express();
    app.disable('x-powered-by');
    app.get('/metrics', (_request: Request, response: Response) => {
      register.metrics().then(
        (body) => response.type(register.contentType).send(body),
        () => response.status(500).end(),
      );
    });
    app.use((_request: Request, response: Response) => {
      response.status(404).type('text/plain').send('not found');
    });
    const server = app.listen(this.address.port, this.address.host);
    await once(server, 'listening');
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

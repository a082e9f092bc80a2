import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Bounds of `cpx webhooks listen`. It may be bound to a shared interface (`--host 0.0.0.0`), so anyone who reaches
 * the port must not be able to fill its memory or hold its connections.
 */
export interface ListenerLimits {
  /** A body above this is answered 413 and not read further. */
  maxBodyBytes: number;
  /** Time to receive the request's headers. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, headers and body. */
  requestTimeoutMs: number;
  /** How often Node checks those two timeouts (its default, 30 s, would let a stalled request live that long). */
  checkIntervalMs: number;
}

export const LISTEN_LIMITS: ListenerLimits = {
  // Our payloads are a few KiB (docs/webhooks.md); 1 MiB leaves room for any receiver test without being a sink.
  maxBodyBytes: 1024 * 1024,
  headersTimeoutMs: 5_000,
  // The service itself gives a receiver 5 s for the whole exchange, and its bodies arrive in one go.
  requestTimeoutMs: 10_000,
  checkIntervalMs: 1_000,
};

/** Called with the complete body of a request that stayed within the limits; it answers the response. */
export type BodyHandler = (body: Buffer, request: IncomingMessage, response: ServerResponse) => void;

/**
 * The receiver's HTTP server: reads each body up to `maxBodyBytes` and hands it on. Above that (declared in
 * `Content-Length` or reached while reading) it answers 413 with `Connection: close`, stops reading and closes.
 * A client slower than the headers or request timeout gets Node's 408 and is disconnected.
 */
export function createWebhookListener(onBody: BodyHandler, limits: ListenerLimits = LISTEN_LIMITS): Server {
  return createServer(
    { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs },
    (request, response) => {
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
        refuseTooLarge(request, response);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > limits.maxBodyBytes) {
          request.off('data', onData);
          request.off('end', onEnd);
          chunks.length = 0;
          refuseTooLarge(request, response);
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => onBody(Buffer.concat(chunks), request, response);
      request.on('data', onData);
      request.on('end', onEnd);
    },
  );
}

function refuseTooLarge(request: IncomingMessage, response: ServerResponse): void {
  // Nothing more is read: the connection closes once the answer is written.
  request.pause();
  response.writeHead(413, { Connection: 'close', 'Content-Type': 'text/plain' }).end('payload too large\n', () => request.socket.destroy());
}

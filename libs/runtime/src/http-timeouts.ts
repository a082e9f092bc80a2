import type { Server } from 'node:http';

/**
 * Idle keep-alive sockets outlive every client's own idle timeout (undici keeps them 4 s by default, load
 * balancers 60 s): the server then never closes a socket at the instant a client reuses it, the race that
 * shows as `fetch failed`/ECONNRESET with no HTTP status under load. Node's default (5 s) is inside that
 * window. headersTimeout must exceed keepAliveTimeout; requestTimeout bounds a whole request, large
 * uploads on a slow link included.
 */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HTTP_HEADERS_TIMEOUT_MS = 66_000;
export const HTTP_REQUEST_TIMEOUT_MS = 600_000;

export function applyHttpTimeouts(server: Server): void {
  server.keepAliveTimeout = HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HTTP_HEADERS_TIMEOUT_MS;
  server.requestTimeout = HTTP_REQUEST_TIMEOUT_MS;
}

import { ErrorCode } from '@cp/contracts';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Status line of a request Node's parser refused, by its error code (any other parse error is a 400). */
const HEADER_OVERFLOW = '431 Request Header Fields Too Large';
const BAD_REQUEST = '400 Bad Request';

/** The response object Node attaches to a connection once it has started answering on it. */
interface AnsweringSocket {
  _httpMessage?: { headersSent?: boolean } | null;
}

/**
 * Requests Node cannot parse (headers over its 16 KiB limit, a broken request line) never reach the application:
 * without a listener Node answers 431 or 400 with an empty body, where every other refusal has the `{ "code" }` body
 * of spec 7. Same statuses, with the body. Timeouts and broken connections keep Node's own handling (408 with no
 * body on a request timeout; otherwise the connection is closed), and nothing is written once an answer has begun.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const code = error.code ?? '';
    const answering = (socket as Duplex & AnsweringSocket)._httpMessage?.headersSent === true;
    if (!socket.writable || answering) {
      socket.destroy();
      return;
    }
    if (!code.startsWith('HPE_')) {
      if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      } else {
        socket.destroy();
      }
      return;
    }
    const status = code === 'HPE_HEADER_OVERFLOW' ? HEADER_OVERFLOW : BAD_REQUEST;
    const body = JSON.stringify({ code: ErrorCode.VALIDATION_FAILED });
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

import { DomainException, ErrorCode } from '@cp/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendDeferredContinue } from './test-upload-continue.listener';

/** A test-key upload may be large but nothing is kept; still, no endless streams (the documented 256 MiB). */
export const MAX_TEST_UPLOAD_BYTES = 256 * 1024 * 1024;

/** At most this long a refused upload's connection is still read (and discarded) after the 413, then closed. */
export const REFUSED_UPLOAD_LINGER_MS = 2_000;

/**
 * 413 for an upload over the limit, and the connection closed after it (`Connection: close`): the rest of the body
 * is never counted. A plain close loses the answer: Node ends a `Connection: close` exchange with
 * `socket.destroySoon()` (FIN, then destroy), bytes the client is still sending then draw a TCP reset, and a client
 * still writing its body sees ECONNRESET/EPIPE before it reads the 413 (what happened before, and also when the
 * request was destroyed first). So this connection closes like nginx's lingering close: FIN after the answer, what
 * still arrives is read and thrown away, and the socket is destroyed when the client closes or after
 * REFUSED_UPLOAD_LINGER_MS.
 */
function tooLarge(request: IncomingMessage, response: ServerResponse): DomainException {
  closeWithoutReading(request, response);
  return new DomainException(ErrorCode.PAYLOAD_TOO_LARGE, 'test upload over the size limit');
}

/**
 * For an answer given without the body (a refusal, a replay): `Connection: close`, and the lingering close
 * described at `tooLarge`, so a client still writing its body reads the answer instead of a reset.
 */
export function closeWithoutReading(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('Connection', 'close');
  const socket = request.socket;
  socket.destroySoon = () => {
    const timer = setTimeout(() => socket.destroy(), REFUSED_UPLOAD_LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.end();
  };
  request.on('data', discard);
  request.resume();
}

function discard(): void {
  // The bytes of a refused upload are read only so that the client can read the 413.
}

/**
 * Counts the body's bytes up to `limit` and discards them. Listeners rather than `for await`: leaving an async
 * iterator early destroys the request, and with it the socket, before the 413 is written. Over the limit the count
 * stops and the promise rejects with PAYLOAD_TOO_LARGE (see `tooLarge` for how the connection ends).
 */
export function countBodyBytes(request: IncomingMessage, response: ServerResponse, limit: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let size = 0;
    const settle = (outcome: () => void): void => {
      request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        settle(() => reject(tooLarge(request, response)));
      }
    };
    const onEnd = (): void => settle(() => resolve(size));
    // The client went away mid-body: its fault, and nobody is left to read the answer.
    const onError = (): void => settle(() => reject(new DomainException(ErrorCode.VALIDATION_FAILED, 'test upload aborted by the client')));
    const onClose = (): void => {
      if (!request.complete) {
        onError();
      }
    };
    request.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * The test-upload body, counted and discarded (spec 4.8). A declared `Content-Length` over the limit is refused
 * before a byte is read (and before `100 Continue`); a chunked body is refused when it crosses the limit.
 */
export async function readTestUploadBody(request: IncomingMessage, response: ServerResponse, limit = MAX_TEST_UPLOAD_BYTES): Promise<number> {
  const declared = request.headers['content-length'];
  // Node has already refused a Content-Length that is not a decimal number (400 before routing).
  if (declared !== undefined && Number(declared) > limit) {
    throw tooLarge(request, response);
  }
  sendDeferredContinue(request, response);
  return countBodyBytes(request, response, limit);
}

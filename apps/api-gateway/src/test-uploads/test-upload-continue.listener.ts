import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isTestUploadPath } from '../auth/api-key-auth.middleware';
import { declaredOverLimit } from '../http/body-deadline.middleware';

/** Requests of the test-upload sink whose `100 Continue` waits for the sink's own checks. */
const deferred = new WeakSet<IncomingMessage>();

/**
 * `Expect: 100-continue` on the test-upload sink. Without a `checkContinue` listener Node answers `100 Continue` to
 * every such request before any code of ours runs, so a client announcing 300 MiB was told to send them and was
 * then cut off. With this listener the sink's continue is sent by the sink itself once the token and the declared
 * size pass (`sendDeferredContinue`): a refused upload gets its 404 or 413 instead, and the client never starts
 * sending. Every other route continues at once, unless its declared body is over `bodyLimitBytes`: that one gets
 * its 413 (`bodyDeadlineMiddleware`) without being asked for the body.
 */
export function deferTestUploadContinue(server: Server, bodyLimitBytes = Number.POSITIVE_INFINITY): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0];
    if (isTestUploadPath(path)) {
      deferred.add(request);
    } else if (!declaredOverLimit(request, bodyLimitBytes)) {
      response.writeContinue();
    }
    // With a checkContinue listener Node does not emit 'request' itself: the application gets the request here.
    server.emit('request', request, response);
  });
}

/** Sends the `100 Continue` held back for this request, if any (once). */
export function sendDeferredContinue(request: IncomingMessage, response: ServerResponse): void {
  if (deferred.delete(request)) {
    response.writeContinue();
  }
}

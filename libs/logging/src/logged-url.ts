import { loggedObjectKey } from '@cp/contracts';

/**
 * Routes whose URL is itself a credential: a test-upload token in the path authorises a PUT for 900 s, and a v2
 * result URL carries a presigned storage query (`X-Amz-Signature`, valid up to 1 hour). Matched case-insensitively
 * and with repeated slashes, as a client may send them (the router decides later whether it serves them).
 */
const TEST_UPLOAD_PATH = /^\/+api\/+v2\/+test-uploads(?=\/|$)/i;
const RESULTS_PATH = /^\/+api\/+v2\/+results(?=\/|$)/i;
/** A presigned query on any other route (a client that pasted one where it does not belong) is not logged either. */
const PRESIGNED_QUERY = /(?:^|&)x-amz-(?:signature|credential|security-token)=/i;

export const REDACTED = '[redacted]';

/**
 * The request URL as logs and traces may keep it: a test-upload token becomes `[redacted]` and its query is
 * dropped, a result URL keeps its path only, without the file name, any other URL whose query carries a presigned signature loses its
 * query; everything else is kept as received.
 */
export function loggedUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const testUpload = TEST_UPLOAD_PATH.exec(path);
  if (testUpload) {
    return path.length > testUpload[0].length ? `${testUpload[0]}/${REDACTED}` : testUpload[0];
  }
  if (RESULTS_PATH.test(path)) {
    // The last segment of a result's key is the client's file name: logs and traces outlive the order.
    return loggedObjectKey(path);
  }
  if (PRESIGNED_QUERY.test(query)) {
    return path;
  }
  return url;
}

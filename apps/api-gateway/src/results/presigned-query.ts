import { isCalendarDateOrDateTime } from '@cp/contracts';

/** The longest validity S3 grants a SigV4 presigned URL (7 days). */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
/** How far ahead of the gateway's clock a link may be dated (the signing service's clock may run a little ahead). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** The query parameters of a SigV4 presigned GET that `ObjectStorage.presignGet` hands out, and nothing else. */
const REQUIRED = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'] as const;
const OPTIONAL = ['X-Amz-Security-Token', 'response-content-disposition'] as const;
const ALLOWED = new Set<string>([...REQUIRED, ...OPTIONAL]);

/** `20261129T031500Z` → epoch ms; null when it is not a real UTC time in that form (no field rolled over). */
function amzDateMs(value: string): number | null {
  const parts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!parts) {
    return null;
  }
  const iso = `${parts[1]}-${parts[2]}-${parts[3]}T${parts[4]}:${parts[5]}:${parts[6]}Z`;
  return isCalendarDateOrDateTime(iso) ? Date.parse(iso) : null;
}

/**
 * Why a relayed query is not a live presigned read, or null when it is one: exactly the parameters of a SigV4
 * presigned GET signed for the Host header only, each once, dated, not expired, and, when it names a download file,
 * an attachment. Storage checks the signature itself; this is the gateway's own check in front of it, so that a
 * storage that does not (a development S3 server, a bucket made public by mistake) is never read without a link
 * the platform issued, a subresource (`?acl`, `?tagging`, a listing) is never asked for, and no response header
 * override (`response-content-type=text/html`, an inline disposition) can make the API's origin serve a page.
 */
export function presignedQueryRefusal(query: string, nowMs: number): string | null {
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!ALLOWED.has(name)) {
      return `query parameter ${name.slice(0, 64)} is not one of a presigned read`;
    }
    if (seen.has(name)) {
      return `query parameter ${name} twice`;
    }
    seen.add(name);
  }
  const missing = REQUIRED.find((name) => !seen.has(name));
  if (missing) {
    return `query parameter ${missing} missing`;
  }
  if (params.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || params.get('X-Amz-SignedHeaders') !== 'host') {
    return 'not a SigV4 presigned read signed for its Host';
  }
  if (!/^[0-9a-f]{64}$/.test(params.get('X-Amz-Signature') ?? '')) {
    return 'signature is not 64 hexadecimal digits';
  }
  const date = params.get('X-Amz-Date') ?? '';
  const signedAt = amzDateMs(date);
  // The credential is `<access key>/<yyyymmdd>/<region>/s3/aws4_request`, its scope dated the day of X-Amz-Date (read
  // from the right: the access key is the operator's and its characters are not ours to assume).
  const credential = (params.get('X-Amz-Credential') ?? '').split('/');
  const [day, region, service, terminator] = credential.slice(-4);
  if (signedAt === null || credential.length < 5 || credential[0] === '' || day !== date.slice(0, 8) || !region || service !== 's3' || terminator !== 'aws4_request') {
    return 'date or credential scope malformed';
  }
  const expires = params.get('X-Amz-Expires') ?? '';
  if (!/^[1-9]\d{0,6}$/.test(expires) || Number(expires) > MAX_EXPIRES_SECONDS) {
    return 'expiry malformed';
  }
  if (signedAt > nowMs + CLOCK_SKEW_MS || nowMs > signedAt + Number(expires) * 1000) {
    return 'link expired or dated ahead';
  }
  const disposition = params.get('response-content-disposition');
  if (disposition !== null && !/^attachment(;|$)/i.test(disposition.trim())) {
    return 'download disposition is not an attachment';
  }
  return null;
}

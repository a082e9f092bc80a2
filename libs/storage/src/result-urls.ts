/**
 * The gateway route that serves stored results with the HTTP headers a presigned storage URL cannot carry
 * (anti-AI results: `X-Robots-Tag`, TDMRep). The presigned path and query are kept as they are: storage still
 * checks the signature and the expiry, the gateway only relays the bytes and adds the headers.
 */
export const RESULTS_ROUTE = '/api/v2/results';

/** `https://api.example.com/api/v2/results/<bucket>/<key>?X-Amz-…` for a path-style presigned URL. */
export function resultUrlThroughGateway(presignedUrl: string, publicBaseUrl: string): string {
  const url = new URL(presignedUrl);
  return `${publicBaseUrl.replace(/\/$/, '')}${RESULTS_ROUTE}${url.pathname}${url.search}`;
}

/** The headers that tell crawlers and TDMRep readers that the file may not be used for AI training or mining. */
export const OPT_OUT_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'X-Robots-Tag': 'noai, noimageai',
  'tdm-reservation': '1',
};

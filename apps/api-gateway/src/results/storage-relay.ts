import { Inject, Injectable } from '@nestjs/common';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform, TransformCallback } from 'node:stream';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';

/** Storage must have answered with its status line within this time. */
export const RELAY_HEADERS_TIMEOUT_MS = 30_000;
/** A whole relayed download, however large, ends by then (a client reading slowly cannot hold a socket for ever). */
export const RELAY_DEADLINE_MS = 15 * 60_000;
/** No result object is larger (the largest are ZIP archives of an order's outputs). */
export const RELAY_MAX_BYTES = 4 * 1024 ** 3;

/** Why a relay did not give a file: the caller maps each to its public answer (404 or 503). */
export type RelayRefusal = 'not-relayed' | 'not-found' | 'storage-unavailable';

export class StorageRelayError extends Error {
  constructor(
    readonly reason: RelayRefusal,
    message: string = reason,
  ) {
    super(message);
    this.name = 'StorageRelayError';
  }
}

/** Characters a presigned object path may carry as they are; anything else (a backslash above all) is refused. */
const PATH_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

/**
 * The URL of one relayed read, built from the fixed storage origin and nothing else of the caller's but a path and a
 * query. Refused (null): a backslash or any character outside a path's own, an encoded slash or backslash, an empty
 * or dot segment (plain or encoded), a path outside `/<bucket>/`, or a result whose origin is not storage's. WHATWG
 * URL parsing treats `/\host` and `//host` as the start of an authority, so the caller's text is never parsed as a
 * URL reference against the endpoint: the path is checked first and set on a URL that already has the origin.
 */
export function relayTarget(pathAndQuery: string, storageEndpoint: string, bucket: string): URL | null {
  const queryAt = pathAndQuery.indexOf('?');
  const path = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  const query = queryAt === -1 ? '' : pathAndQuery.slice(queryAt);
  if (!path.startsWith(`/${bucket}/`) || !PATH_CHARACTERS.test(path) || /%(2f|5c)/i.test(path) || /[\\#\s]/.test(query)) {
    return null;
  }
  const segments = path.slice(1).split('/');
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return null;
    }
    if (decoded === '' || decoded === '.' || decoded === '..') {
      return null;
    }
  }
  if (segments.length < 2) {
    return null;
  }
  const origin = new URL(storageEndpoint);
  const target = new URL(origin.origin);
  target.pathname = path;
  target.search = query;
  if (target.origin !== origin.origin || target.pathname !== path || !target.pathname.startsWith(`/${bucket}/`)) {
    return null;
  }
  return target;
}

/** Counts a relayed body and cuts it at the cap. */
class ByteCap extends Transform {
  private seen = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    callback(this.seen > this.maxBytes ? new StorageRelayError('storage-unavailable', 'relayed object larger than the cap') : null, chunk);
  }
}

export interface RelayedObject {
  headers: IncomingMessage['headers'];
  /** The object's bytes: errors when the deadline passes or the cap is reached, and the caller then drops the client. */
  body: NodeJS.ReadableStream;
}

/**
 * Reads one object from storage with a client's presigned path and query, unchanged: storage checks the
 * signature and the expiry, so the gateway needs no storage credentials. The request goes to the configured
 * storage origin only (never a host, port or scheme from the request), with the Host the URL was signed for,
 * under a deadline for the status line, one for the whole download, and a byte cap.
 */
@Injectable()
export class StorageRelay {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  /** Rejects with a StorageRelayError: `not-relayed` (the path is refused), `not-found` (storage said no), `storage-unavailable`. */
  async open(pathAndQuery: string): Promise<RelayedObject> {
    const { storageEndpoint, signedHost, bucket } = this.config.results;
    const target = relayTarget(pathAndQuery, storageEndpoint, bucket);
    if (!target) {
      throw new StorageRelayError('not-relayed');
    }
    const upstream = await this.request(target, signedHost);
    const status = upstream.statusCode ?? 0;
    if (status !== 200) {
      upstream.resume();
      // An expired, altered or unknown link: storage's 403/404 is not passed on. Its 5xx means it is unwell.
      throw new StorageRelayError(status >= 500 ? 'storage-unavailable' : 'not-found', `storage answered ${status}`);
    }
    const declared = Number(upstream.headers['content-length']);
    if (Number.isFinite(declared) && declared > RELAY_MAX_BYTES) {
      upstream.destroy();
      throw new StorageRelayError('storage-unavailable', `object declares ${declared} bytes`);
    }
    const cap = new ByteCap(RELAY_MAX_BYTES);
    const deadline = setTimeout(() => upstream.destroy(new StorageRelayError('storage-unavailable', 'relay deadline passed')), RELAY_DEADLINE_MS);
    deadline.unref();
    upstream.on('close', () => clearTimeout(deadline));
    upstream.on('error', (error) => cap.destroy(error));
    cap.on('error', () => upstream.destroy());
    return { headers: upstream.headers, body: upstream.pipe(cap) };
  }

  private request(target: URL, signedHost: string): Promise<IncomingMessage> {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(target, { method: 'GET', headers: { host: signedHost } }, (response) => {
        clearTimeout(headersDeadline);
        resolve(response);
      });
      const headersDeadline = setTimeout(() => outgoing.destroy(new StorageRelayError('storage-unavailable', 'storage did not answer in time')), RELAY_HEADERS_TIMEOUT_MS);
      outgoing.on('error', (error) => {
        clearTimeout(headersDeadline);
        reject(error instanceof StorageRelayError ? error : new StorageRelayError('storage-unavailable', error.message));
      });
      outgoing.end();
    });
  }
}

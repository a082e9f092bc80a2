import { Clock } from '@cp/clock';
import { asEgressError, EgressClient, EgressFailure } from '@cp/egress';
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { presignedQueryRefusal } from './presigned-query';

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

export interface RelayedObject {
  headers: IncomingHttpHeaders;
  /** The object's bytes: errors when the deadline passes or the cap is reached, and the caller then drops the client. */
  body: NodeJS.ReadableStream;
}

/**
 * Reads one object from storage with a client's presigned path and query, unchanged: storage checks the
 * signature, so the gateway needs no storage credentials; the gateway first checks that the query is a live
 * presigned read and nothing more (`presignedQueryRefusal`), so that a storage which does not check signatures is
 * never read without a link the platform issued. Through the platform's one way out
 * (`@cp/egress`), held to the configured storage origin (never a host, port or scheme from the request; a URL
 * outside it is refused there too), with the Host the URL was signed for, under a deadline for the status line,
 * one for the whole download, and a byte cap. Each address the storage name resolves to and the connected one are
 * checked: storage may be private, a metadata address never.
 */
@Injectable()
export class StorageRelay {
  private readonly egress: EgressClient;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly clock: Clock,
  ) {
    this.egress = new EgressClient({ origin: config.results.storageEndpoint, schemes: ['http:', 'https:'], userAgent: 'content-protection-results-relay' });
  }

  /**
   * Rejects with a StorageRelayError: `not-relayed` (the path is refused), `not-found` (storage said no),
   * `storage-unavailable` (or the caller's `signal` ended it: its client is gone).
   */
  async open(pathAndQuery: string, signal?: AbortSignal): Promise<RelayedObject> {
    const { storageEndpoint, signedHost, bucket } = this.config.results;
    const target = relayTarget(pathAndQuery, storageEndpoint, bucket);
    if (!target) {
      throw new StorageRelayError('not-relayed');
    }
    const refusal = presignedQueryRefusal(target.search, this.clock.nowMs());
    if (refusal) {
      throw new StorageRelayError('not-relayed', refusal);
    }
    try {
      const answer = await this.egress.stream({
        url: target.toString(),
        headers: { host: signedHost },
        deadlineMs: RELAY_DEADLINE_MS,
        answerWithinMs: RELAY_HEADERS_TIMEOUT_MS,
        maxResponseBytes: RELAY_MAX_BYTES,
        signal,
      });
      return { headers: answer.headers, body: answer.body };
    } catch (error) {
      const failure = asEgressError(error);
      // An expired, altered or unknown link: storage's 403/404 is not passed on. Its 5xx means it is unwell.
      const storageRefused = failure.reason === EgressFailure.BAD_STATUS && failure.status !== undefined && failure.status < 500;
      throw new StorageRelayError(storageRefused ? 'not-found' : 'storage-unavailable', failure.message);
    }
  }
}

import { EgressClient, EgressError, EgressFailure, EgressStream } from '@cp/egress';
import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';

/**
 * `permanent`: retrying cannot help (bad status, too large, too slow, forbidden address, redirect). Its `cause` is
 * the egress module's error: the consumer then never takes it for an outage of our own infrastructure (a source
 * that refuses connections reads "connect ECONNREFUSED" like a database that is down), so a failure that may pass
 * later is retried as a counted attempt with backoff and, once they are used up, fails the file.
 */
export class SourceFetchError extends Error {
  override readonly name = 'SourceFetchError';
  /** Why the egress module refused or cut the fetch. */
  readonly reason: EgressFailure;

  constructor(
    message: string,
    readonly permanent: boolean,
    /** What the egress module refused or cut. */
    override readonly cause: EgressError,
  ) {
    super(message, { cause });
    this.reason = cause.reason;
  }
}

/**
 * An egress failure as a fetch failure. Network trouble and a 5xx/429 answer may pass on a later attempt;
 * everything else cannot: a source too slow for the deadline is failed once rather than holding a fetch slot
 * for every attempt.
 */
function toFetchError(error: EgressError): SourceFetchError {
  switch (error.reason) {
    case EgressFailure.NETWORK:
      return new SourceFetchError(error.message, false, error);
    case EgressFailure.BAD_STATUS: {
      const status = error.status ?? 0;
      return new SourceFetchError(error.message, status < 500 && status !== 429, error);
    }
    case EgressFailure.BLOCKED_ADDRESS:
      return new SourceFetchError(`address not allowed: ${error.message}`, true, error);
    case EgressFailure.DEADLINE:
      return new SourceFetchError(`the source did not deliver within the deadline (${error.message})`, true, error);
    default:
      return new SourceFetchError(error.message, true, error);
  }
}

/**
 * Downloads a file given by `originalFileUrl` straight into storage through the egress module: HTTPS only,
 * public addresses only (checked on the connected socket), redirects not followed, one deadline for the whole
 * download and the size capped while streaming. A failure of the download rejects the storage upload too.
 */
@Injectable()
export class SourceFetcher {
  private readonly egress: EgressClient;

  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly storage: ObjectStorage,
  ) {
    const { allowPrivate, allowedIps, extraCaFile } = config.sourceFetch;
    this.egress = new EgressClient({
      userAgent: 'content-protection-fetcher/1',
      schemes: ['https:'],
      allowPrivate,
      allowedIps,
      ...(extraCaFile ? { extraCa: readFileSync(extraCaFile) } : {}),
    });
  }

  /** Returns the number of bytes stored. */
  async fetchInto(url: string, bucket: string, key: string): Promise<number> {
    let source: EgressStream;
    try {
      source = await this.egress.stream({ url, deadlineMs: this.config.sourceFetch.deadlineMs, maxResponseBytes: this.config.sourceFetch.maxBytes });
    } catch (error) {
      throw error instanceof EgressError ? toFetchError(error) : error;
    }
    try {
      const contentType = source.headers['content-type'];
      await this.storage.put(bucket, key, source.body, typeof contentType === 'string' ? contentType : undefined);
    } catch (error) {
      // The body's own failure (cap, deadline, reset); anything else is storage trouble, retried as it is.
      source.body.destroy();
      throw error instanceof EgressError ? toFetchError(error) : error;
    }
    return source.body.bytes;
  }
}

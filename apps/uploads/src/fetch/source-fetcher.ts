import { ObjectStorage } from '@cp/storage';
import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { get } from 'node:https';
import { Transform, TransformCallback } from 'node:stream';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { UPLOADS_CONFIG, UploadsConfig } from '../uploads.config';

/** `permanent`: retrying cannot help (bad status, too large, forbidden address, redirect). */
export class SourceFetchError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

class SizeLimit extends Transform {
  private seen = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) {
      callback(new SourceFetchError(`larger than ${this.maxBytes} bytes`, true));
      return;
    }
    callback(null, chunk);
  }

  get bytes(): number {
    return this.seen;
  }
}

/** A refused address can never succeed; network trouble may pass. */
function classify(error: Error): SourceFetchError {
  if (error instanceof SourceFetchError) {
    return error;
  }
  // request-filtering-agent's refusal: "… is not allowed. Because, It is private IP address."
  return new SourceFetchError(error.message, /is not allowed/i.test(error.message));
}

/**
 * Downloads a file given by `originalFileUrl` straight into storage: HTTPS only, redirects not followed,
 * the size counted while streaming, and connections to private, loopback, link-local and metadata
 * addresses refused on the address actually connected to (request-filtering-agent checks the socket).
 */
@Injectable()
export class SourceFetcher {
  private readonly agent: RequestFilteringHttpsAgent;

  constructor(
    @Inject(UPLOADS_CONFIG) private readonly config: UploadsConfig,
    private readonly storage: ObjectStorage,
  ) {
    const { allowPrivate, extraCaFile } = config.sourceFetch;
    this.agent = new RequestFilteringHttpsAgent({
      allowPrivateIPAddress: allowPrivate,
      allowMetaIPAddress: false,
      keepAlive: false,
      ...(extraCaFile ? { ca: readFileSync(extraCaFile) } : {}),
    });
  }

  /** Returns the number of bytes stored. */
  async fetchInto(url: string, bucket: string, key: string): Promise<number> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:') {
      throw new SourceFetchError('only https URLs are fetched', true);
    }
    const response = await this.request(parsed);
    if (response.statusCode !== 200) {
      response.resume();
      const status = response.statusCode ?? 0;
      throw new SourceFetchError(`answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`, status < 500 && status !== 429);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.config.sourceFetch.maxBytes) {
      response.destroy();
      throw new SourceFetchError(`declares ${declared} bytes, more than allowed`, true);
    }
    const limit = new SizeLimit(this.config.sourceFetch.maxBytes);
    let failure: Error | undefined;
    response.on('error', (error) => limit.destroy(error));
    limit.on('error', (error) => {
      failure = error;
      response.destroy();
    });
    try {
      await this.storage.put(bucket, key, response.pipe(limit), response.headers['content-type']);
    } catch (error) {
      if (failure) {
        throw failure;
      }
      throw error;
    }
    if (failure) {
      throw failure;
    }
    return limit.bytes;
  }

  private request(url: URL): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const fail = (error: Error): void => reject(classify(error));
      try {
        const request = get(url, { agent: this.agent, timeout: this.config.sourceFetch.timeoutMs, headers: { 'user-agent': 'content-protection-fetcher/1' } }, resolve);
        request.on('timeout', () => request.destroy(new SourceFetchError('timed out', false)));
        request.on('error', fail);
      } catch (error) {
        // The filtering agent refuses a literal private address synchronously, before any socket exists.
        fail(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}

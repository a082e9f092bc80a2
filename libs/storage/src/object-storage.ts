import { StorageConfig } from '@cp/config';
import { loggedObjectKey } from '@cp/contracts';
import contentDisposition from 'content-disposition';
import { Client } from 'minio';
import http from 'node:http';
import https from 'node:https';
import { PassThrough, pipeline, Readable } from 'node:stream';

export interface ObjectInfo {
  size: number;
  etag: string;
}

/** A storage connection silent for longer than S3_IDLE_TIMEOUT_MS (ETIMEDOUT: an outage to the consumers). */
export class StorageIdleTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(idleMs: number) {
    super(`storage sent and received nothing for ${idleMs} ms`);
    this.name = 'StorageIdleTimeoutError';
  }
}

/**
 * The minio client's transport with an idle limit on every request, through its response body: the client has
 * no timeout of its own, so a storage server that accepts the connection and then stops answering (frozen, a
 * half-open connection after a network cut) would hold the caller for as long as the kernel keeps the socket.
 */
export function idleTimeoutTransport(base: typeof http | typeof https, idleMs: number): Pick<typeof http, 'request'> {
  // minio calls only `request(options, callback)`; the cast gives the function http.request's overloaded type.
  const request = ((options: http.RequestOptions, callback?: (response: http.IncomingMessage) => void): http.ClientRequest => {
    const outgoing = base.request(options, callback);
    let incoming: http.IncomingMessage | undefined;
    outgoing.once('response', (response: http.IncomingMessage) => {
      incoming = response;
    });
    outgoing.setTimeout(idleMs, () => {
      const error = new StorageIdleTimeoutError(idleMs);
      // the body's reader sees this error, not the bare "aborted" of a destroyed request
      incoming?.destroy(error);
      outgoing.destroy(error);
    });
    return outgoing;
  }) as typeof http.request;
  return { request };
}

function clientFor(endpoint: string, config: StorageConfig): Client {
  const url = new URL(endpoint);
  const useSSL = url.protocol === 'https:';
  return new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    transport: idleTimeoutTransport(useSSL ? https : http, config.idleTimeoutMs),
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    // A fixed region stops the client from asking the server for bucket locations.
    region: config.region,
    pathStyle: true,
    // Streams of unknown length go up in parts of this size: bounded memory for large ZIPs.
    partSize: 16 * 1024 * 1024,
  });
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'NotFound' || code === 'NoSuchKey' || code === 'NoSuchBucket';
}

/** One entry of a bulk delete's error list: minio's parser gives the `<Error>` element itself; its type says `{ Error }`. */
type RemoveError = { Key?: unknown; Error?: { Key?: unknown } } | null | undefined;

/**
 * The keys a bulk delete reports as not deleted. An error that names no key (or a key that was not asked
 * for) makes every key count as not deleted: nothing may be taken for gone that storage did not confirm.
 */
export function keysNotRemoved(requested: readonly string[], errors: readonly RemoveError[]): string[] {
  const asked = new Set(requested);
  const failed = new Set<string>();
  for (const error of errors) {
    if (!error) {
      continue;
    }
    // The XML parser turns an all-digit key into a number.
    const named = error.Key ?? error.Error?.Key;
    const key = typeof named === 'number' ? String(named) : named;
    if (typeof key !== 'string' || !asked.has(key)) {
      return [...requested];
    }
    failed.add(key);
  }
  return requested.filter((key) => failed.has(key));
}

/** Unicode bidirectional formatting characters (embeddings, overrides, isolates, marks). */
const BIDI_CONTROLS = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

/**
 * A client's file name as a download or ZIP entry name: a plain name (no folder part) without bidirectional
 * controls, so an RTL override cannot show `photo‮gpj.exe` as `photoexe.jpg`.
 */
export function safeDownloadName(name: string): string {
  const plain = name.replace(BIDI_CONTROLS, '_').split(/[\\/]/).pop() ?? '';
  return plain === '' || plain === '.' || plain === '..' ? '_' : plain;
}

/**
 * S3 object storage through the minio client. Services talk to `endpoint`; presigned URLs are made for
 * `publicEndpoint`, the address an external client reaches (the signature covers the host).
 */
export class ObjectStorage {
  private readonly internal: Client;
  private readonly external: Client;

  constructor(readonly config: StorageConfig) {
    this.internal = clientFor(config.endpoint, config);
    this.external = clientFor(config.publicEndpoint, config);
  }

  get buckets(): StorageConfig['buckets'] {
    return this.config.buckets;
  }

  async ensureBuckets(): Promise<void> {
    for (const bucket of Object.values(this.config.buckets)) {
      const exists = await this.internal.bucketExists(bucket);
      if (!exists) {
        try {
          await this.internal.makeBucket(bucket, this.config.region);
        } catch (error) {
          // Another replica created it between the check and the call.
          const code = (error as { code?: string }).code;
          if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') {
            throw error;
          }
        }
      }
    }
  }

  async ping(): Promise<void> {
    await this.internal.bucketExists(this.config.buckets.inputs);
  }

  presignPut(bucket: string, key: string, expirySeconds: number): Promise<string> {
    return this.external.presignedPutObject(bucket, key, expirySeconds);
  }

  presignGet(bucket: string, key: string, expirySeconds: number, downloadName?: string): Promise<string> {
    const headers: Record<string, string> = {};
    if (downloadName) {
      // RFC 6266: an ASCII fallback and the UTF-8 name (Korean or Japanese names, quotes, RTL marks), which
      // a raw header value could not carry.
      headers['response-content-disposition'] = contentDisposition(safeDownloadName(downloadName), { type: 'attachment' });
    }
    return this.external.presignedGetObject(bucket, key, expirySeconds, headers);
  }

  /**
   * Stores `body`. A stream's failure (a fetch cut at its byte cap or deadline, a reset connection) rejects
   * with that error: the minio client pipes the body into its own chunking stream and listens for errors only
   * there, so on its own a failing source would leave the upload unsettled for ever.
   */
  async put(bucket: string, key: string, body: Buffer | Readable, contentType?: string, size?: number): Promise<void> {
    const metadata = contentType ? { 'Content-Type': contentType } : {};
    if (Buffer.isBuffer(body)) {
      await this.internal.putObject(bucket, key, body, body.length, metadata);
      return;
    }
    // The client reads a stream we control; the source's error ends that stream and settles the put.
    const relay = new PassThrough();
    let sourceFailed: (error: Error) => void = () => undefined;
    const failure = new Promise<never>((_resolve, reject) => {
      sourceFailed = reject;
    });
    pipeline(body, relay, (error) => {
      if (error) {
        sourceFailed(error);
      }
    });
    try {
      await Promise.race([this.internal.putObject(bucket, key, relay, size, metadata), failure]);
    } catch (error) {
      // Stop reading the source (an S3 error) and drop parts of a multipart upload the failure left behind.
      body.destroy();
      relay.destroy();
      await this.internal.removeIncompleteUpload(bucket, key).catch(() => undefined);
      throw error;
    }
  }

  get(bucket: string, key: string): Promise<Readable> {
    return this.internal.getObject(bucket, key);
  }

  /** Reads a whole object, refusing one larger than `maxBytes`. */
  async getBuffer(bucket: string, key: string, maxBytes: number): Promise<Buffer> {
    const stream = await this.internal.getObject(bucket, key);
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buffer.length;
      if (total > maxBytes) {
        stream.destroy();
        // Ids only: this message is logged and kept with the attempt, past the order's expiry.
        throw new Error(`object ${bucket}/${loggedObjectKey(key)} is larger than ${maxBytes} bytes`);
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  }

  async stat(bucket: string, key: string): Promise<ObjectInfo | null> {
    try {
      const info = await this.internal.statObject(bucket, key);
      return { size: info.size, etag: info.etag };
    } catch (error) {
      if (isNotFound(error)) {
        return null;
      }
      throw error;
    }
  }

  async remove(bucket: string, keys: string[]): Promise<void> {
    if (keys.length > 0) {
      await this.internal.removeObjects(bucket, keys);
    }
  }

  /**
   * Deletes `keys` in bulk and returns the keys storage did not delete: the bulk call answers 200 with a
   * per-key error list, which `remove` does not look at.
   */
  async removeEach(bucket: string, keys: string[]): Promise<string[]> {
    if (keys.length === 0) {
      return [];
    }
    return keysNotRemoved(keys, await this.internal.removeObjects(bucket, keys));
  }

  async listKeys(bucket: string, prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const stream = this.internal.listObjectsV2(bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) {
        keys.push(item.name);
      }
    }
    return keys;
  }
}

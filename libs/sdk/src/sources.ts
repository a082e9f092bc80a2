import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { ContentProtectionError } from './errors';
import { DEFAULT_RETRY, RetryPolicy, sleep } from './transport';

/**
 * A file to send: a local path (streamed from disk), a public HTTPS URL the service fetches itself
 * (`originalFileUrl`, embed only), bytes in memory, or a stream factory (called again on a retry).
 */
export type FileSource =
  | string
  | { path: string; name?: string }
  | { url: string; name?: string }
  | { name: string; data: Uint8Array }
  | { name: string; size: number; stream: () => Readable };

export interface ResolvedSource {
  name: string;
  /** Set for URL sources: nothing is uploaded. */
  url?: string;
  size?: number;
  open?: () => Readable;
}

/**
 * The file name an order gets for a source: its own `name`, else a path's base name or a URL's last path segment
 * (decoded). Throws a TypeError for a URL source that is not a URL.
 */
export function sourceName(source: FileSource): string {
  if (typeof source === 'string') {
    return path.basename(source);
  }
  if ('path' in source) {
    return source.name ?? path.basename(source.path);
  }
  if ('url' in source) {
    return source.name ?? decodeURIComponent(path.posix.basename(new URL(source.url).pathname));
  }
  return source.name;
}

export async function resolveSource(source: FileSource): Promise<ResolvedSource> {
  if (typeof source === 'string' || 'path' in source) {
    const file = typeof source === 'string' ? source : source.path;
    const name = sourceName(source);
    try {
      const info = await stat(file);
      if (!info.isFile()) {
        throw new Error('not a regular file');
      }
      return { name, size: info.size, open: () => createReadStream(file) };
    } catch (error) {
      throw new ContentProtectionError('FILE_ERROR', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  if ('url' in source) {
    return { name: sourceName(source), url: source.url };
  }
  if ('data' in source) {
    const data = source.data;
    return { name: source.name, size: data.byteLength, open: () => Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]) };
  }
  return { name: source.name, size: source.size, open: source.stream };
}

/**
 * PUTs a file to a presigned upload URL as a stream with its Content-Length (storage refuses chunked
 * uploads), reporting bytes as they leave. Retried from the start on network errors and 5xx answers.
 */
export async function uploadTo(
  url: string,
  source: ResolvedSource,
  onBytes: (sent: number) => void = () => undefined,
  policy: RetryPolicy = DEFAULT_RETRY,
  baseFetch: typeof fetch = fetch,
): Promise<void> {
  if (!source.open || source.size === undefined) {
    throw new ContentProtectionError('FILE_ERROR', `${source.name} has no content to upload`);
  }
  for (let retry = 0; ; retry += 1) {
    let sent = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        sent += chunk.length;
        onBytes(sent);
        callback(null, chunk);
      },
    });
    const body = Readable.toWeb(source.open().pipe(counter)) as ReadableStream<Uint8Array>;
    let failure: string;
    try {
      const response = await baseFetch(url, {
        method: 'PUT',
        body,
        headers: { 'content-length': String(source.size) },
        duplex: 'half',
      } as RequestInit);
      await response.arrayBuffer();
      if (response.ok) {
        return;
      }
      failure = `HTTP ${response.status}`;
      if (response.status < 500) {
        throw new ContentProtectionError('TRANSFER_FAILED', `upload of ${source.name} refused: ${failure}`, { status: response.status });
      }
    } catch (error) {
      if (error instanceof ContentProtectionError) {
        throw error;
      }
      failure = (error as Error).message;
    }
    if (retry >= policy.maxRetries) {
      throw new ContentProtectionError('TRANSFER_FAILED', `upload of ${source.name} failed: ${failure}`);
    }
    onBytes(0);
    await sleep(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
  }
}

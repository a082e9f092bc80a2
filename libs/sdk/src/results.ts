import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl, { Entry, ZipFile } from 'yauzl';
import { ContentProtectionError } from './errors';

/** Output files are named `<original name>-watermarked-<output fileId>.<extension>` (spec 4.4 rule 2). */
export function outputFileName(inputName: string, outputFileId: string): string {
  const extension = path.extname(inputName);
  return `${path.basename(inputName, extension)}-watermarked-${outputFileId}${extension}`;
}

const OUTPUT_ID_IN_NAME = /-watermarked-(\d+-\d+)\.[^.]+$/;

/** A presigned URL's body as a Node stream (throws TRANSFER_FAILED on a non-2xx answer). */
export async function openUrl(url: string, baseFetch: typeof fetch = fetch): Promise<Readable> {
  let response: Response;
  try {
    response = await baseFetch(url);
  } catch (error) {
    throw new ContentProtectionError('TRANSFER_FAILED', `download failed: ${(error as Error).message}`, { cause: error });
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new ContentProtectionError('TRANSFER_FAILED', `download refused: HTTP ${response.status}`, { status: response.status });
  }
  return Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
}

export async function saveStream(stream: Readable, file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.part`;
  try {
    await pipeline(stream, createWriteStream(partial));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error instanceof ContentProtectionError
      ? error
      : new ContentProtectionError('FILE_ERROR', `cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function openZip(file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (error, zip) => (error ? reject(error) : resolve(zip))),
  );
}

/**
 * Unpacks the result archive into `directory`, one file per output. Entry names are reduced to their base
 * name (no path from the archive is trusted). Returns output fileId → written path.
 */
export async function unzipOutputs(archive: string, directory: string): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  const zip = await openZip(archive);
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: Entry) => {
      const name = path.basename(entry.fileName);
      if (entry.fileName.endsWith('/') || name === '') {
        zip.readEntry();
        return;
      }
      zip.openReadStream(entry, (error, stream) => {
        if (error) {
          reject(error);
          return;
        }
        const target = path.join(directory, name);
        saveStream(stream, target).then(() => {
          const id = OUTPUT_ID_IN_NAME.exec(name)?.[1];
          if (id) {
            written.set(id, target);
          }
          zip.readEntry();
        }, reject);
      });
    });
    zip.readEntry();
  });
  return written;
}

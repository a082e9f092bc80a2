import archiver from 'archiver';
import { once } from 'node:events';
import { ObjectStorage, safeDownloadName } from './object-storage';

/** One stored object and the name of its entry in the ZIP (a plain file name). */
export interface ZipEntrySource {
  bucket: string;
  key: string;
  fileName: string;
}

/**
 * The platform's one ZIP packaging path (the processor's package job, v2 archives, the sandbox samples):
 * streams the objects into one ZIP object entry by entry, so no whole ZIP or output is held in memory.
 * Images and PDFs are already compressed, so entries are stored, not deflated again.
 */
export async function writeZipPackage(storage: ObjectStorage, entries: readonly ZipEntrySource[], target: { bucket: string; key: string }): Promise<void> {
  const archive = archiver('zip', { store: true });
  const upload = storage.put(target.bucket, target.key, archive, 'application/zip').catch((error: unknown) => {
    archive.abort();
    throw error;
  });
  const appendEntries = async (): Promise<void> => {
    for (const entry of entries) {
      const added = once(archive, 'entry');
      archive.append(await storage.get(entry.bucket, entry.key), { name: safeDownloadName(entry.fileName) });
      await added;
    }
    await archive.finalize();
  };
  // Both sides are awaited together: a failed upload or a missing entry rejects, never crashes the process.
  await Promise.all([upload, appendEntries()]);
}

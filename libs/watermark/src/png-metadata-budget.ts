import { inflateSync } from 'node:zlib';
import { pngChunks } from './metadata';

/**
 * Bytes of metadata one PNG may hand ExifTool, all together, before it reads or rewrites the file (the AI detector's
 * metadata signal, the anti-AI opt-out writer): its compressed chunks inflated, and its uncompressed text (tEXt,
 * uncompressed iTXt) as it is. Generation parameters, ComfyUI workflows, XMP packets and ICC profiles are kilobytes
 * to a few megabytes.
 */
export const PNG_METADATA_MAX_BYTES = 8 * 1024 * 1024;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG as ExifTool may read it: the metadata chunks that stay within the budget, and the types of those left out. */
export interface BoundedPng {
  bytes: Buffer;
  omitted: string[];
}

/**
 * Where the zlib data of a chunk ExifTool inflates starts (PNG.pm: zTXt and iCCP after the name and the method byte,
 * iTXt with its compression flag set after the language and translated keyword, eXIf/zxIf whose first byte is 0
 * after a 4-byte length), or null for a chunk it reads as it is.
 */
function zlibDataStart(type: string, data: Buffer): number | null {
  const name = data.indexOf(0);
  switch (type) {
    case 'zTXt':
    case 'iCCP':
      return name < 0 ? null : name + 2;
    case 'iTXt': {
      if (name < 0 || data[name + 1] === 0) return null;
      const language = data.indexOf(0, name + 3);
      const translated = language < 0 ? -1 : data.indexOf(0, language + 1);
      return translated < 0 ? null : translated + 1;
    }
    default:
      return /^(exif|zxif)$/i.test(type) && data[0] === 0 ? 5 : null;
  }
}

/** Whether `data` inflates completely (a whole zlib stream) to at most `budget` bytes; how many if so. */
function inflatedSize(data: Buffer, budget: number): number | null {
  try {
    // Stops as soon as the output would pass the budget: a bomb costs at most the budget.
    return inflateSync(data, { maxOutputLength: Math.max(1, budget) }).length;
  } catch {
    return null;
  }
}

/**
 * Bytes of `data` that ExifTool keeps as tag values: a compressed chunk inflated whole (null if it does not inflate
 * completely within `left`), a text chunk as it is (null past `left`; its perl strings take about 4.5 times that), any
 * other chunk none (image data is skipped; an unknown chunk is read and dropped).
 */
function heldSize(type: string, data: Buffer, left: number): number | null {
  const start = zlibDataStart(type, data);
  if (start !== null) return inflatedSize(data.subarray(start), left);
  if (type === 'tEXt' || type === 'iTXt') return data.length <= left ? data.length : null;
  return 0;
}

/**
 * ExifTool inflates every compressed PNG chunk whole, with no limit, when it reads a file and when it rewrites one
 * (a 400 KB file with a zTXt of 400 MB of text took its perl process to 1.7 GB and past its 20-second timeout; a 1 MB
 * one took a rewrite to 2.1 GB), and keeps each text chunk whole. The chunks are weighed here first, within one budget
 * for the file: a metadata chunk is kept only when what ExifTool would hold of it fits within what is left of it; the
 * others are left out of the copy returned (their types listed). Anything that is not a readable PNG chunk sequence is
 * returned as it is. The budget bounds bytes, not what ExifTool makes of them: the memory limit of its process
 * (`boundedExiftool`) holds the rest, e.g. XMP of many small properties, in any container.
 */
export function withinPngMetadataBudget(bytes: Buffer, budget = PNG_METADATA_MAX_BYTES): BoundedPng {
  if (bytes.length < SIGNATURE.length || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) {
    return { bytes, omitted: [] };
  }
  const kept: Buffer[] = [SIGNATURE];
  const omitted: string[] = [];
  let left = budget;
  let at = SIGNATURE.length;
  for (const { type, start: chunkStart, end } of pngChunks(bytes)) {
    if (end > bytes.length) break;
    const data = bytes.subarray(chunkStart + 8, end - 4);
    const size = heldSize(type, data, left);
    if (size === null) {
      omitted.push(type);
    } else {
      left -= size;
      kept.push(bytes.subarray(chunkStart, end));
    }
    at = end;
  }
  if (omitted.length === 0) {
    return { bytes, omitted };
  }
  // Whatever follows (after IEND, or a chunk cut short) is kept as it is: ExifTool reads it as it would have.
  kept.push(bytes.subarray(at));
  return { bytes: Buffer.concat(kept), omitted };
}

import { childPidsRunning, pauseChildStartedBy } from './child-processes';
import { withPngChunk } from './png-chunks';

/**
 * XMP of one property nested `depth` deep (`<e:a><e:a>…v…</e:a></e:a>`): ExifTool's XMP parser works through it in
 * time that grows with the square of the depth and little memory (depth 2,000, a 22 KB packet: about 3.6 s of CPU and
 * 46 MB; 4,000: 14 s and 75 MB). A file that keeps ExifTool busy on the CPU, not in memory.
 */
export function deeplyNestedXmp(depth: number): Buffer {
  const head = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:e="http://example.com/e/">';
  return Buffer.from(`${head}${'<e:a>'.repeat(depth)}v${'</e:a>'.repeat(depth)}</rdf:Description></rdf:RDF></x:xmpmeta>`, 'latin1');
}

/** A PNG with `xmp` as its XMP (`iTXt` chunk `XML:com.adobe.xmp`). */
export function withPngXmp(png: Buffer, xmp: Buffer): Buffer {
  return withPngChunk(png, 'iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), xmp]));
}

// ExifTool's script by its path, not any argument that names it (a worktree called exiftool).
const EXIFTOOL_SCRIPT = '/bin/exiftool';

/** Ids of this process's children running ExifTool (perl), from /proc. */
export function exiftoolChildPids(): number[] {
  return childPidsRunning(EXIFTOOL_SCRIPT);
}

/**
 * Runs `start`, a task that starts a new ExifTool (perl), and pauses that perl (SIGSTOP: it then uses no CPU until its
 * task's deadline, what a starved process looks like); its id. ExifTools started before are left alone.
 */
export function pauseExiftoolStartedBy(start: () => Promise<unknown>): Promise<number> {
  return pauseChildStartedBy(EXIFTOOL_SCRIPT, start);
}

import { preferForOutOfMemory } from '@cp/bounded-worker';
import { ExifTool, ExifToolOptions, exiftoolPath } from 'exiftool-vendored';
import { spawn } from 'node:child_process';

/**
 * Memory (address space) the AI detector's ExifTool may take while it reads one file. A few megabytes of legitimate
 * metadata (a ComfyUI workflow, a Photoshop XMP of 3 MB) peaked at about 110 MB resident; what the file can make
 * ExifTool hold is far larger than the file (8 MB of XMP with many properties: 3.9 GB), whatever its container.
 */
export const EXIFTOOL_READ_MAX_MEMORY_MB = 512;

/**
 * The same for the anti-AI opt-out writer, in the watermark processor (2 GiB, one job at a time): ExifTool checks
 * the CRC of each PNG chunk it rewrites through a perl list of its bytes, about 45 bytes of memory for each one
 * (a legitimate 3.3 MB XMP chunk: 225 MB).
 */
export const EXIFTOOL_WRITE_MAX_MEMORY_MB = 1024;

export interface BoundedExiftoolOptions {
  maxMemoryMb: number;
  taskTimeoutMillis: number;
  /** Arguments before the `-stay_open` ones (`-config <file>` must come first). */
  leadingArgs?: string[];
}

/**
 * One ExifTool (`-stay_open` perl process) held to `maxMemoryMb` of address space by the kernel (`ulimit -v`, set by
 * /bin/sh before it becomes perl). A file that needs more makes perl die ("Out of memory!") and only its own task
 * fails (`isExiftoolFileFailure`); the next task starts a new process. No retry: the same file would fail again.
 */
export function boundedExiftool(options: BoundedExiftoolOptions): ExifTool {
  const args = [...(options.leadingArgs ?? []), '-stay_open', 'True', '-@', '-'];
  const processFactory: ExifToolOptions['processFactory'] = async () => {
    // `exec` keeps one process, perl itself, whose id exiftool-vendored knows and ends; LANG as exiftool-vendored sets it.
    const child = spawn('/bin/sh', ['-c', `ulimit -v ${Math.floor(options.maxMemoryMb * 1024)} && exec "$0" "$@"`, await exiftoolPath(), ...args], {
      stdio: 'pipe',
      env: { LANG: 'C' },
    });
    // Its limit and the service's other children together can pass the pod's: the kernel then ends perl, a failed task.
    preferForOutOfMemory(child);
    return child;
  };
  return new ExifTool({ maxProcs: 1, taskTimeoutMillis: options.taskTimeoutMillis, taskRetries: 0, processFactory });
}

/**
 * Whether an ExifTool task failed because of the file: its process died during it (past its memory limit) or it
 * ran past its deadline. Other failures (no perl, a task refused by ExifTool) are not the file's doing.
 */
export function isExiftoolFileFailure(error: unknown): boolean {
  return error instanceof Error && /^(Process terminated before task completed|timeout: waited)/.test(error.message);
}

import { boundedExiftool, EXIFTOOL_WRITE_MAX_MEMORY_MB, ExiftoolLimits, exiftoolLimits, isExiftoolFileFailure } from '@cp/watermark';
import { ExifTool } from 'exiftool-vendored';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AntiAiError, AntiAiErrorCode, AntiAiFormat } from './types';

/**
 * ExifTool has no table for the W3C TDM Reservation Protocol: this user-defined namespace makes
 * `XMP-tdm:Reservation` (integer) and `XMP-tdm:Policy` (URI) writable.
 */
const TDMREP_CONFIG = `%Image::ExifTool::UserDefined = (
    'Image::ExifTool::XMP::Main' => {
        tdm => { SubDirectory => { TagTable => 'Image::ExifTool::UserDefined::tdm' } },
    },
);
%Image::ExifTool::UserDefined::tdm = (
    GROUPS => { 0 => 'XMP', 1 => 'XMP-tdm', 2 => 'Document' },
    NAMESPACE => { 'tdm' => 'http://www.w3.org/ns/tdmrep/' },
    WRITABLE => 'string',
    reservation => { Writable => 'integer' },
    policy => { },
);
1;
`;

/**
 * Limits of the opt-out writer's ExifTool for one file: memory, and the CPU it may keep it busy (half of
 * the wall deadline, 15 s: `exiftoolLimits`). A task that reaches the 30 s deadline under that budget waited for the machine, and one
 * whose process the kernel killed lost it to the machine: its error (`ExiftoolMachineFailure`) is thrown on and the job
 * retried, never a refusal of the file.
 */
export const OPT_OUT_WRITE_LIMITS: Required<ExiftoolLimits> = exiftoolLimits({ maxMemoryMb: EXIFTOOL_WRITE_MAX_MEMORY_MB, taskTimeoutMillis: 30_000 });

export const TDMREP_NAMESPACE = 'http://www.w3.org/ns/tdmrep/';

export interface OptOutFields {
  /** PLUS Data Mining code, e.g. `DMI-PROHIBITED-AIMLTRAINING` (written as the full vocabulary URI). */
  dataMining: string;
  otherConstraints: string;
  rights: string;
  tdmPolicyUrl?: string;
}

/** What ExifTool reads back (the same fields; `tdmReservation` 1 = rights reserved). */
export interface OptOutReadBack {
  dataMining?: string;
  otherConstraints?: string;
  rights?: string;
  tdmReservation?: number;
  tdmPolicy?: string;
}

/**
 * Writes the opt-out into the file's XMP with ExifTool (shipped inside `exiftool-vendored.pl`, run by the
 * system perl): ExifTool rewrites metadata segments/chunks only, so the decoded pixels stay identical.
 * One long-lived ExifTool process per instance; `close()` ends it.
 */
export class OptOutMetadataWriter {
  private exiftool?: Promise<{ tool: ExifTool; dir: string }>;
  private readonly limits: Required<ExiftoolLimits>;

  /** `limits`: OPT_OUT_WRITE_LIMITS, or some of them changed (tests). */
  constructor(limits: Partial<ExiftoolLimits> = {}) {
    this.limits = { ...OPT_OUT_WRITE_LIMITS, ...limits };
  }

  async write(input: Buffer, format: AntiAiFormat, fields: OptOutFields): Promise<Buffer> {
    return this.withFile(input, format, async (tool, file) => {
      await this.refusingWhatTheFileCauses(() => tool.write(
        file,
        {
          // `#` skips the print conversion; ExifTool adds the vocabulary prefix itself, so the code
          // (not the full URI) is what goes in, or the URI ends up doubled.
          'XMP-plus:DataMining#': fields.dataMining,
          'XMP-plus:OtherConstraints': fields.otherConstraints,
          'XMP-dc:Rights': fields.rights,
          'XMP-tdm:Reservation': 1,
          ...(fields.tdmPolicyUrl ? { 'XMP-tdm:Policy': fields.tdmPolicyUrl } : {}),
        } as Record<string, string | number>,
        // Not `-fast`, though it skips ExifTool's CRC check of each PNG chunk it copies (a perl list of the chunk's
        // bytes, ~45 bytes of memory per byte; the memory limit holds it): with it ExifTool 13.59 writes the text
        // chunks it finds after IDAT twice (moved before IDAT, and left where they were).
        { writeArgs: ['-overwrite_original'] },
      ));
      return readFile(file);
    });
  }

  /** ExifTool's reading of the fields this writer sets (tests and diagnostics). */
  async read(input: Buffer, format: AntiAiFormat): Promise<OptOutReadBack> {
    return this.withFile(input, format, async (tool, file) => {
      const tags = (await tool.read(file, { readArgs: ['-G1', '-n', '-struct'] })) as unknown as Record<string, unknown>;
      const text = (name: string): string | undefined => (typeof tags[name] === 'string' ? (tags[name]) : undefined);
      const reservation = tags['XMP-tdm:Reservation'];
      return {
        dataMining: text('XMP-plus:DataMining'),
        otherConstraints: text('XMP-plus:OtherConstraints'),
        rights: text('XMP-dc:Rights'),
        tdmReservation: typeof reservation === 'number' ? reservation : undefined,
        tdmPolicy: text('XMP-tdm:Policy'),
      };
    });
  }

  async close(): Promise<void> {
    const started = this.exiftool;
    this.exiftool = undefined;
    if (started) {
      const { tool, dir } = await started;
      await tool.end();
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * What a file's metadata makes ExifTool hold (past its memory limit: perl dies) or do (past its CPU budget) is the
   * file's fault, in any container: refused like a damaged file (a retry would fail the same way). A deadline reached
   * under the CPU budget, or perl killed by the kernel, is the machine's (`ExiftoolMachineFailure`): thrown on, so the
   * job is retried.
   */
  private async refusingWhatTheFileCauses<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isExiftoolFileFailure(error)) {
        throw new AntiAiError(AntiAiErrorCode.CORRUPT_IMAGE, `the file's metadata cannot be rewritten within ${this.limits.maxMemoryMb} MiB of memory and ${this.limits.cpuBudgetMillis / 1000} seconds of CPU (${error.message})`);
      }
      throw error;
    }
  }

  private start(): Promise<{ tool: ExifTool; dir: string }> {
    this.exiftool ??= (async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'anti-ai-'));
      const config = path.join(dir, 'tdmrep.config');
      await writeFile(config, TDMREP_CONFIG);
      // `-config` must be ExifTool's first argument.
      const tool = boundedExiftool({ ...this.limits, leadingArgs: ['-config', config] });
      return { tool, dir };
    })();
    return this.exiftool;
  }

  private async withFile<T>(input: Buffer, format: AntiAiFormat, work: (tool: ExifTool, file: string) => Promise<T>): Promise<T> {
    const { tool, dir } = await this.start();
    const workDir = await mkdtemp(path.join(dir, 'f-'));
    const file = path.join(workDir, `image.${format === 'jpeg' ? 'jpg' : format}`);
    try {
      await writeFile(file, input);
      return await work(tool, file);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
}

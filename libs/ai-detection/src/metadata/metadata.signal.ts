import { boundedExiftool, EXIFTOOL_READ_MAX_MEMORY_MB, ExiftoolLimits, exiftoolLimits, isExiftoolFileFailure, PNG_METADATA_MAX_BYTES, withinPngMetadataBudget } from '@cp/watermark';
import { ExifTool, Tags } from 'exiftool-vendored';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifySourceType, sourceTypeTerm } from '../digital-source-type';
import { Evidence, SignalOutcome } from '../evidence';
import { EVIDENCE_WEIGHTS } from '../weights';

/** Names of image generators as they appear in Software / CreatorTool / generator fields (lower case). */
const KNOWN_GENERATORS = [
  'stable diffusion', 'automatic1111', 'comfyui', 'invokeai', 'fooocus', 'novelai', 'midjourney', 'dall-e', 'dall·e',
  'openai', 'adobe firefly', 'firefly', 'imagen', 'gemini', 'leonardo.ai', 'ideogram', 'flux', 'sdxl', 'dreamstudio',
];

/** PNG text chunks that image generators write (Stable Diffusion web UIs: `parameters`; ComfyUI: `prompt`, `workflow`). */
const PARAMETER_TAGS = ['Parameters', 'Prompt', 'Workflow', 'Sd-metadata', 'Dream', 'InvokeaiMetadata'] as const;

const SOFTWARE_TAGS = ['Software', 'CreatorTool', 'HistorySoftwareAgent', 'ProcessingSoftware', 'Generator'] as const;

export type TagMap = Record<string, unknown>;

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join(', ') || null;
  return null;
}

/**
 * Declared metadata, from tags already read: a pure function, so tests need no file. Every finding is an unsigned
 * claim of the same weight either way (weights.ts); the fusion counts one per direction (`independentEvidence`).
 */
export function metadataEvidence(tags: TagMap): Evidence[] {
  const evidence: Evidence[] = [];
  const sourceType = text(tags['DigitalSourceType']);
  if (sourceType) {
    const kind = classifySourceType(sourceType);
    const weight =
      kind === 'ai' || kind === 'compositeAi' ? EVIDENCE_WEIGHTS.declaredAi
      : kind === 'capture' ? EVIDENCE_WEIGHTS.declaredCapture
      : 0;
    evidence.push({
      signal: 'metadata',
      finding: `metadata.sourceType.${kind}`,
      // The file's text, as long as its author likes: cut like the other tags (the vocabulary's URIs are far shorter).
      description: `Unsigned IPTC/XMP DigitalSourceType "${sourceTypeTerm(sourceType).slice(0, 100)}" (anyone can write or remove it).`,
      direction: weight > 0 ? 'ai' : weight < 0 ? 'real' : 'neutral',
      weight,
      details: { digitalSourceType: sourceType.slice(0, 200) },
    });
  }
  const parameterTags = PARAMETER_TAGS.filter((name) => text(tags[name]));
  if (parameterTags.length > 0) {
    evidence.push({
      signal: 'metadata',
      finding: 'metadata.generatorParameters',
      description: `Generation parameters written by an image generator (${parameterTags.join(', ')}).`,
      direction: 'ai',
      weight: EVIDENCE_WEIGHTS.declaredAi,
      details: Object.fromEntries(parameterTags.map((name) => [name, (text(tags[name]) ?? '').slice(0, 200)])),
    });
  }
  for (const name of SOFTWARE_TAGS) {
    const value = text(tags[name]);
    const generator = value && KNOWN_GENERATORS.find((g) => value.toLowerCase().includes(g));
    if (value && generator) {
      evidence.push({
        signal: 'metadata',
        finding: 'metadata.generatorSoftware',
        // A name found inside the value, not a product identified: "Imagenomic" contains "imagen". Said as such.
        description: `${name} contains "${generator}", the name of an image generator ("${value.slice(0, 100)}"); a name inside another product's name matches too.`,
        direction: 'ai',
        weight: EVIDENCE_WEIGHTS.declaredAi,
        details: { tag: name, value: value.slice(0, 200), matched: generator },
      });
      break;
    }
  }
  return evidence;
}

/** PNG metadata left unread (past the budget, or compressed and not a whole zlib stream): said, never counted. */
function omittedMetadata(chunks: readonly string[]): Evidence {
  return {
    signal: 'metadata',
    finding: 'metadata.unreadable',
    description: `Metadata past ${PNG_METADATA_MAX_BYTES / 1024 / 1024} MiB (compressed chunks inflated, text as it is), or compressed data that does not inflate, was not read (${chunks.length} PNG chunk${chunks.length === 1 ? '' : 's'}); it is not counted.`,
    direction: 'neutral',
    weight: 0,
    details: { omittedChunks: chunks.length, chunkTypes: [...new Set(chunks)].join(', ').slice(0, 100) },
  };
}

/**
 * Limits of the detector's ExifTool for one file: what a file may make it hold, and the CPU it may keep it busy
 * (half the wall deadline, 10 s: `exiftoolLimits`). A task that reaches the 20 s deadline under that budget waited for
 * the machine, and one whose process the kernel killed lost it to the machine: its error is thrown on and the job
 * retried (`ExiftoolMachineFailure`).
 */
export const METADATA_READ_LIMITS: Required<ExiftoolLimits> = exiftoolLimits({ maxMemoryMb: EXIFTOOL_READ_MAX_MEMORY_MB, taskTimeoutMillis: 20_000 });

/**
 * Characters of one tag value ExifTool hands back (each list item and structure field alike); the evidence keeps 200.
 * Its JSON answer is otherwise as long as the file's longest values (twice, with the MWG composites): exiftool-vendored
 * gathers it in the detector's own thread at a cost that grows faster than its length (a TIFF whose ImageDescription
 * held 64 MB: 134 MB of answer, past the 20 s timeout twice; given 60 s, 40 s of the caller's CPU and pauses of its
 * event loop of up to 3 s).
 */
export const METADATA_VALUE_MAX_CHARS = 4096;

/** ExifTool's `Filter` option: a perl expression applied to every value it returns, cutting it to the limit. */
const READ_ARGS = ['-fast', '-api', `Filter=$_ = substr($_, 0, ${METADATA_VALUE_MAX_CHARS}) if length($_) > ${METADATA_VALUE_MAX_CHARS}`];

/** Metadata ExifTool could not read within its memory and CPU limits: said, never counted. */
function unreadableMetadata(limits: Required<ExiftoolLimits>): Evidence {
  return {
    signal: 'metadata',
    finding: 'metadata.unreadable',
    description: `The file's metadata could not be read within ${limits.maxMemoryMb} MiB of memory and ${limits.cpuBudgetMillis / 1000} seconds of CPU; it is not counted.`,
    direction: 'neutral',
    weight: 0,
    details: { limits: `${limits.maxMemoryMb} MiB, ${limits.cpuBudgetMillis / 1000} s of CPU` },
  };
}

/** Reads metadata with ExifTool (shipped inside `exiftool-vendored`, run by the system perl; no download). */
export class MetadataReader {
  private readonly exiftool: ExifTool;
  private readonly limits: Required<ExiftoolLimits>;

  /** `limits`: METADATA_READ_LIMITS, or some of them changed (tests). */
  constructor(limits: Partial<ExiftoolLimits> = {}) {
    this.limits = { ...METADATA_READ_LIMITS, ...limits };
    // One process reads every detection's file in turn: held to its limits whatever the file makes it hold or do.
    this.exiftool = boundedExiftool(this.limits);
  }

  /**
   * The signal's evidence. Throws `ExiftoolMachineFailure` when ExifTool was not run in time (an overloaded machine) or
   * was killed by the kernel: not the file's doing, so the detection fails this attempt and its job is retried.
   */
  async read(bytes: Buffer): Promise<SignalOutcome> {
    const read = await this.tags(bytes);
    if (read === null) return { evidence: [unreadableMetadata(this.limits)] };
    const evidence = metadataEvidence(read.tags);
    return { evidence: read.omitted.length > 0 ? [...evidence, omittedMetadata(read.omitted)] : evidence };
  }

  /**
   * The tags ExifTool reads from the file (each value cut to METADATA_VALUE_MAX_CHARS) and the PNG chunks left out of
   * its copy, or null when the file took ExifTool past its memory limit or CPU budget.
   */
  async tags(bytes: Buffer): Promise<{ tags: TagMap; omitted: string[] } | null> {
    // ExifTool inflates compressed PNG chunks and keeps text chunks whole: those past the budget are not handed to it.
    const readable = withinPngMetadataBudget(bytes);
    // ExifTool reads files: the bytes go to a private temporary directory removed afterwards.
    const dir = await mkdtemp(join(tmpdir(), 'ai-detection-'));
    try {
      const file = join(dir, 'input');
      await writeFile(file, readable.bytes);
      let tags: Tags;
      try {
        tags = await this.exiftool.read(file, { readArgs: READ_ARGS });
      } catch (error) {
        // Past the memory limit or the CPU budget (what a file's metadata makes ExifTool hold or do, in any container):
        // the detection goes on without this signal, as for an unreadable C2PA manifest. Anything else, the machine's
        // failures included (a deadline reached under the CPU budget, perl killed by the kernel), fails the attempt.
        if (isExiftoolFileFailure(error)) return null;
        throw error;
      }
      return { tags: tags as unknown as TagMap, omitted: readable.omitted };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    await this.exiftool.end();
  }
}

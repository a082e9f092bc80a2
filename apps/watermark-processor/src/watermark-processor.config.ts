import {
  ConfigValidationError,
  CoreConfig,
  OutboundSettings,
  StorageConfig,
  StorageEnv,
  testOnlyOutboundVariables,
  toCoreConfig,
  toOutboundSettings,
  toStorageConfig,
  toWorkerSettings,
  validateEnv,
  withOutboundEnv,
  withWorkerEnv,
  WorkerSettings,
} from '@cp/config';
import { loadSigningCredentials, SigningCredentials } from '@cp/anti-ai';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';

const DEV_WATERMARK_SECRET = 'dev-only-watermark-secret';

/**
 * The worker variables (`WATERMARK_MAX_PIXELS`, `_MAX_INPUT_BYTES`, `_CONCURRENCY`, `_MAX_ATTEMPTS`) come from
 * `withWorkerEnv`; the zero-copy target's (`ANTI_AI_TARGET_DEADLINE_MS`: all attempts of one delivery together,
 * `_MAX_BYTES`: a larger result fails with ANTI_AI_OUTPUT_TARGET_REFUSED unsent, `_ALLOW_PRIVATE`, `_ALLOWED_IPS`,
 * `_EXTRA_CA_FILE`) from `withOutboundEnv`.
 */
export class WatermarkProcessorEnv extends withOutboundEnv(withWorkerEnv(StorageEnv, 'WATERMARK'), 'ANTI_AI_TARGET', {
  defaultMaxBytes: 512 * 1024 * 1024,
  maxDeadlineMs: 900_000,
}) {
  override PORT: number = 3103;

  /** Keys the watermark pattern and the payload check; changing it makes existing marks unreadable. */
  @IsString()
  @MinLength(16)
  WATERMARK_SECRET = DEV_WATERMARK_SECRET;

  /** PDF: all FlateDecode streams of one file may inflate to at most this many bytes (checked before parsing). */
  @IsInt()
  @Min(1024 * 1024)
  PDF_MAX_INFLATED_BYTES: number = 512 * 1024 * 1024;

  /** PDF: ... and to at most this many times the file's size, */
  @IsInt()
  @Min(1)
  PDF_MAX_INFLATION_RATIO: number = 100;

  /** PDF: ... but a small file may always inflate to this many bytes (a blank scan compresses a thousandfold). */
  @IsInt()
  @Min(1024 * 1024)
  PDF_MIN_INFLATED_BYTES: number = 64 * 1024 * 1024;

  /**
   * PDF: objects (numbers, names, strings, arrays, dictionaries) pdf-lib may build while it parses one file (in the
   * renderer's process, then again for an accepted file's embed in this one), object streams' included; past it the
   * file fails (WATERMARK_FILE_INVALID / unsupported).
   */
  @IsInt()
  @Min(10_000)
  @Max(100_000_000)
  PDF_MAX_PARSED_OBJECTS: number = 2_000_000;

  /** PDF: bytes of names and strings pdf-lib may build while it parses one file (~32 bytes of heap each); past it the file fails. */
  @IsInt()
  @Min(65_536)
  @Max(1_073_741_824)
  PDF_MAX_PARSED_TOKEN_BYTES: number = 8 * 1024 * 1024;

  /** PDF: budget of one call to the pdf.js renderer process (a batch of pages); past it the file fails (WATERMARK_FILE_INVALID / unsupported). */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  PDF_RENDER_DEADLINE_MS: number = 120_000;

  /**
   * PDF: render time of one embed or extraction in all (every call to the renderer); half of it (WORKER_CPU_SHARE) is
   * the document's CPU budget: past that the file fails like a page past PDF_RENDER_DEADLINE_MS, while the time run
   * out with the CPU under it is the machine's (the attempt retried). Below the embed (15 min) and extract (10 min) job
   * deadlines, which retry the attempt.
   */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  PDF_RENDER_DOCUMENT_BUDGET_MS: number = 480_000;

  /** PDF: heap of the pdf.js renderer process; a file that needs more fails with WATERMARK_FILE_INVALID. */
  @IsInt()
  @Min(64)
  @Max(16_384)
  PDF_RENDER_MAX_HEAP_MB: number = 1024;

  /** Anti-AI: PEM certificate chain (leaf first) that signs the C2PA manifests. Unset in development: a development chain is generated at start. */
  @IsOptional()
  @IsString()
  ANTI_AI_C2PA_CERT_CHAIN_PEM?: string;

  /** Anti-AI: PEM (PKCS#8) private key of the leaf certificate: EC P-256, EC P-384 or Ed25519. A secret. */
  @IsOptional()
  @IsString()
  ANTI_AI_C2PA_PRIVATE_KEY_PEM?: string;

  /** Anti-AI: PEM root the service's own C2PA reads trust (optional). */
  @IsOptional()
  @IsString()
  ANTI_AI_C2PA_TRUST_ANCHOR_PEM?: string;
}

export interface WatermarkProcessorConfig extends CoreConfig {
  storage: StorageConfig;
  watermark: WorkerSettings & { secret: string };
  /** What one PDF may cost to open and render (@cp/watermark-pdf's limits). */
  pdf: {
    inflation: { maxInflatedBytes: number; maxInflationRatio: number; minInflatedBytes: number };
    parse: { maxObjects: number; maxTokenBytes: number };
    render: { deadlineMs: number; maxOldGenerationSizeMb: number; documentBudgetMs: number };
  };
  antiAi: {
    /** Absent: a development signing chain is generated at start (refused in production). */
    c2pa?: SigningCredentials;
    target: OutboundSettings;
  };
}

export function loadWatermarkProcessorConfig(source: NodeJS.ProcessEnv = process.env): WatermarkProcessorConfig {
  const env = validateEnv(WatermarkProcessorEnv, source);
  if (env.NODE_ENV === 'production') {
    const unsafe = [
      ...(env.WATERMARK_SECRET === DEV_WATERMARK_SECRET ? ['WATERMARK_SECRET'] : []),
      ...(env.ANTI_AI_C2PA_CERT_CHAIN_PEM && env.ANTI_AI_C2PA_PRIVATE_KEY_PEM ? [] : ['ANTI_AI_C2PA_CERT_CHAIN_PEM', 'ANTI_AI_C2PA_PRIVATE_KEY_PEM']),
      // Private targets are for a local test stack's S3 server only.
      ...testOnlyOutboundVariables(env, 'ANTI_AI_TARGET'),
    ];
    if (unsafe.length > 0) {
      throw new ConfigValidationError(unsafe, unsafe.map((name) => `${name}: must be set to a production value`));
    }
  }
  if (Boolean(env.ANTI_AI_C2PA_CERT_CHAIN_PEM) !== Boolean(env.ANTI_AI_C2PA_PRIVATE_KEY_PEM)) {
    throw new ConfigValidationError(['ANTI_AI_C2PA_PRIVATE_KEY_PEM'], ['ANTI_AI_C2PA_CERT_CHAIN_PEM and ANTI_AI_C2PA_PRIVATE_KEY_PEM: set both or neither']);
  }
  let c2pa: SigningCredentials | undefined;
  if (env.ANTI_AI_C2PA_CERT_CHAIN_PEM && env.ANTI_AI_C2PA_PRIVATE_KEY_PEM) {
    c2pa = { certificateChainPem: env.ANTI_AI_C2PA_CERT_CHAIN_PEM, privateKeyPem: env.ANTI_AI_C2PA_PRIVATE_KEY_PEM, trustAnchorPem: env.ANTI_AI_C2PA_TRUST_ANCHOR_PEM };
    try {
      // A key that does not match its certificate is found at boot, not at the first order.
      loadSigningCredentials(c2pa);
    } catch (error) {
      throw new ConfigValidationError(['ANTI_AI_C2PA_CERT_CHAIN_PEM'], [`ANTI_AI_C2PA_CERT_CHAIN_PEM: ${error instanceof Error ? error.message : 'unreadable'}`]);
    }
  }
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    watermark: { secret: env.WATERMARK_SECRET, ...toWorkerSettings(env, 'WATERMARK') },
    pdf: {
      inflation: { maxInflatedBytes: env.PDF_MAX_INFLATED_BYTES, maxInflationRatio: env.PDF_MAX_INFLATION_RATIO, minInflatedBytes: env.PDF_MIN_INFLATED_BYTES },
      parse: { maxObjects: env.PDF_MAX_PARSED_OBJECTS, maxTokenBytes: env.PDF_MAX_PARSED_TOKEN_BYTES },
      render: { deadlineMs: env.PDF_RENDER_DEADLINE_MS, maxOldGenerationSizeMb: env.PDF_RENDER_MAX_HEAP_MB, documentBudgetMs: env.PDF_RENDER_DOCUMENT_BUDGET_MS },
    },
    antiAi: {
      c2pa,
      target: toOutboundSettings(env, 'ANTI_AI_TARGET'),
    },
  };
}

export const PROCESSOR_CONFIG = Symbol('PROCESSOR_CONFIG');

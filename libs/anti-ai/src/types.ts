import type { WatermarkKey } from '@cp/watermark';

/**
 * What `options.strength` selects (docs/anti-ai.md):
 * - `low`: opt-out metadata only, with PLUS `DMI-PROHIBITED-GENAIMLTRAINING` (generative training refused);
 * - `medium`: opt-out metadata with `DMI-PROHIBITED-AIMLTRAINING` (all AI/ML training refused) and a signed
 *   C2PA manifest carrying the CAWG training-and-data-mining assertion;
 * - `high`: `medium` plus an invisible watermark carrying the opt-out payload, which survives metadata
 *   stripping. Only this strength re-encodes the picture.
 */
export const ANTI_AI_STRENGTHS = ['low', 'medium', 'high'] as const;
export type AntiAiStrength = (typeof ANTI_AI_STRENGTHS)[number];
export const DEFAULT_ANTI_AI_STRENGTH: AntiAiStrength = 'medium';

export type AntiAiLayer = 'optOutMetadata' | 'contentCredentials' | 'watermark';

export const LAYERS_BY_STRENGTH: Record<AntiAiStrength, readonly AntiAiLayer[]> = {
  low: ['optOutMetadata'],
  medium: ['optOutMetadata', 'contentCredentials'],
  high: ['watermark', 'optOutMetadata', 'contentCredentials'],
};

/** IPTC PLUS Data Mining vocabulary codes (the full URI is `http://ns.useplus.org/ldf/vocab/<code>`). */
export const PLUS_VOCABULARY = 'http://ns.useplus.org/ldf/vocab/';
export const DATA_MINING_BY_STRENGTH: Record<AntiAiStrength, string> = {
  low: 'DMI-PROHIBITED-GENAIMLTRAINING',
  medium: 'DMI-PROHIBITED-AIMLTRAINING',
  high: 'DMI-PROHIBITED-AIMLTRAINING',
};

/** Formats every layer handles. BMP has no standard place for XMP or a C2PA manifest: refused. */
export type AntiAiFormat = 'jpeg' | 'png' | 'webp' | 'tiff';

export const CONTENT_TYPES: Record<AntiAiFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tiff: 'image/tiff',
};

export interface ProtectOptions {
  strength: AntiAiStrength;
  /** `dc:rights`, e.g. "© 2026 Acme. No AI training." */
  rights: string;
  /** `plus:OtherConstraints`: the refusal in words. */
  otherConstraints: string;
  /** `tdm:policy`: the client's TDMRep policy URL, when it has one. */
  tdmPolicyUrl?: string;
  /** Name the C2PA manifest gives the asset. */
  title: string;
  /** Needed by `high`: the image engine's key and the payload (an id the extract side resolves). */
  watermark?: { key: WatermarkKey; payload: bigint; maxPixels?: number };
}

export interface ProtectResult {
  data: Buffer;
  format: AntiAiFormat;
  contentType: string;
  layers: AntiAiLayer[];
}

export enum AntiAiErrorCode {
  UNSUPPORTED_FORMAT = 'UNSUPPORTED_FORMAT',
  CORRUPT_IMAGE = 'CORRUPT_IMAGE',
  TOO_MANY_PIXELS = 'TOO_MANY_PIXELS',
  UNSUPPORTED_COLOR_MODE = 'UNSUPPORTED_COLOR_MODE',
}

/** The input can never be protected (a retry cannot help). */
export class AntiAiError extends Error {
  constructor(
    readonly code: AntiAiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AntiAiError';
  }
}

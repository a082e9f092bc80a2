import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { ExaminedBytes, StoredObjectRef } from './order-events';
import { EventSubjects, JobSubjects } from './subjects';
import { IsNestedObject } from './validators';

export const AI_DETECTION_CATEGORIES = ['likely_real', 'uncertain_real', 'uncertain_ai', 'likely_ai'] as const;
export type AiDetectionCategory = (typeof AI_DETECTION_CATEGORIES)[number];

/**
 * What a person can act on (docs/api-decisions.md): a side is named only when the evidence reaches a `likely_*`
 * band; a file with nothing to read, or only weak claims, is `cannot_be_determined` (never "leaning AI").
 */
export const AI_DETECTION_VERDICTS = ['generated', 'edited_with_ai', 'captured', 'cannot_be_determined'] as const;
export type AiDetectionVerdict = (typeof AI_DETECTION_VERDICTS)[number];

/**
 * What every `probability` of an AI detection means, said where a client reads it (v3 read, v2 detail): the weights
 * it fuses are set by rule (docs/ai-detection.md), not fitted to measured error rates, so it is no measured chance.
 */
export const AI_PROBABILITY_MEANING =
  'even odds plus the log-odds weights of the counted findings, clamped to 0.0025–0.9975 (docs/ai-detection.md); the weights are set by rule, not measured error rates (only a calibrated classifier\'s are), so this is not a measured chance that the image is AI-generated: read `verdict`. 0.5 with `noEvidence`: nothing was counted';

/** The `verdict` property of the response views (v3 read, v2 detail), with what it means to the reader. */
export function ApiVerdictProperty(description: string, required = true): PropertyDecorator {
  return ApiProperty({ enum: [...AI_DETECTION_VERDICTS], description, example: 'cannot_be_determined', required });
}

/**
 * The verdict of a stored analysis; analyses recorded before verdicts existed get the one their category and
 * `noEvidence` imply (they never named "edited with AI").
 */
export function aiDetectionVerdictOf(analysis: { verdict?: AiDetectionVerdict; category: AiDetectionCategory; noEvidence: boolean }): AiDetectionVerdict {
  if (analysis.verdict) return analysis.verdict;
  if (analysis.noEvidence) return 'cannot_be_determined';
  return analysis.category === 'likely_ai' ? 'generated' : analysis.category === 'likely_real' ? 'captured' : 'cannot_be_determined';
}

/** The options given at creation, as the v3 read (required) and the v2 detail (optional, with a description) show them. */
export function ApiAiDetectionOptionsProperty(description?: string): PropertyDecorator {
  // Not ApiPropertyOptional: it would replace the nested `required` list with `false`; `selfRequired` says it.
  return ApiProperty({
    type: 'object',
    selfRequired: description === undefined,
    ...(description === undefined ? {} : { description }),
    required: ['generateHeatmap', 'generateOverlay'],
    properties: { generateHeatmap: { type: 'boolean' }, generateOverlay: { type: 'boolean' } },
  });
}

/** `job.aidetect.detect`: analyse one image of an aiDetection order. */
export class AiDetectionJob {
  static readonly subject = JobSubjects.aiDetect;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]{1,20}$/)
  accountId!: string;

  @Matches(/^[0-9]+(-[0-9]+)?$/)
  fileId!: string;

  @IsNestedObject(() => StoredObjectRef)
  input!: StoredObjectRef;

  /** Bucket and key prefix under which the detector writes its images (heatmap, overlay, copies, thumbnail). */
  @IsString()
  outputBucket!: string;

  @IsString()
  outputPrefix!: string;

  @IsBoolean()
  generateHeatmap!: boolean;

  @IsBoolean()
  generateOverlay!: boolean;
}

/**
 * One manifest of a Content Credentials chain (the file's own, then its ingredients'), as c2pa-rs validated it.
 * Also a response view: its OpenAPI schema is generated from the `@ApiProperty` decorators (issue 31).
 */
@ApiSchema({ name: 'AiDetectionProvenanceStep' })
export class AiDetectionProvenanceStep {
  @ApiProperty({ example: 'urn:c2pa:b8660177-2926-4ce8-ac44-0e781cb080a1' })
  @IsString()
  label!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: "0: the file's own manifest", example: 0 })
  @IsInt() @Min(0)
  depth!: number;

  /** `active` (the file's own manifest) or the ingredient relationship (`parentOf`, `componentOf`, `inputTo`). */
  @ApiProperty({ description: '`active`, or the ingredient relationship (`parentOf`, `componentOf`, `inputTo`)', example: 'active' })
  @IsString()
  relationship!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'image.png' })
  @IsOptional() @IsString()
  title!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: "common name of the signing certificate (the file's text)", example: 'Example Generator signer' })
  @IsOptional() @IsString()
  signer!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Example CA' })
  @IsOptional() @IsString()
  issuer!: string | null;

  /** Time of the signature's time stamp, when it carries one. */
  @ApiProperty({ type: 'string', nullable: true, description: "time of the signature's time stamp, when it has one", example: null })
  @IsOptional() @IsString()
  signedAt!: string | null;

  /** c2pa-rs found the signer under an anchor of the C2PA Trust List (false otherwise: fail closed). */
  @ApiProperty({ description: 'c2pa-rs found the signer under an anchor of the C2PA Trust List (false otherwise: fail closed)', example: false })
  @IsBoolean()
  signerTrusted!: boolean;

  @ApiProperty({ type: 'boolean', nullable: true, example: null })
  @IsOptional() @IsBoolean()
  timeStampTrusted!: boolean | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'Example Generator 2.1' })
  @IsOptional() @IsString()
  claimGenerator!: string | null;

  @ApiProperty({ type: [String], example: ['c2pa.created'] })
  @IsArray() @IsString({ each: true })
  actions!: string[];

  /** Actions of this manifest not in `actions`: the reader lists 20, three each once the evidence was shortened to its size limit. */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'actions of this manifest left out of `actions` (20 are listed; 3 when the evidence was shortened to its size limit)',
    example: 4,
  })
  @IsOptional() @IsInt() @Min(1)
  omittedActions?: number;

  @ApiProperty({ type: 'string', nullable: true, example: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' })
  @IsOptional() @IsString()
  digitalSourceType!: string | null;
}

const AI_DETECTION_SIGNALS = ['c2pa', 'metadata', 'sdWatermark', 'classifier'] as const;
const AI_DETECTION_DIRECTIONS = ['ai', 'real', 'neutral'] as const;

/** One finding of one signal, as stored and shown (docs/ai-detection.md lists the findings); also a response view. */
@ApiSchema({ name: 'AiDetectionEvidence' })
export class AiDetectionEvidence {
  @ApiProperty({ enum: [...AI_DETECTION_SIGNALS], example: 'c2pa' })
  @IsIn(AI_DETECTION_SIGNALS)
  signal!: (typeof AI_DETECTION_SIGNALS)[number];

  @ApiProperty({ example: 'c2pa.ai' })
  @IsString()
  finding!: string;

  @ApiProperty({ example: 'Content Credentials (signature valid, signer on the C2PA trust list) declare the source type "trainedAlgorithmicMedia", made by Example Generator 2.1.' })
  @IsString()
  description!: string;

  @ApiProperty({ enum: [...AI_DETECTION_DIRECTIONS], example: 'ai' })
  @IsIn(AI_DETECTION_DIRECTIONS)
  direction!: (typeof AI_DETECTION_DIRECTIONS)[number];

  /** Log-odds this finding added (0: reported, not counted). */
  // The example is a weight the detector gives (a trusted AI source type: docs/ai-detection.md), checked by a spec.
  @ApiProperty({ description: 'log-odds this finding added (0: reported, not counted)', example: 3 })
  @IsNumber()
  weight!: number;

  /** Facts behind the finding; `shortened: true` when the finding was cut to the evidence's size limit (docs/ai-detection.md). */
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'facts behind the finding; `shortened: true` when it was cut to the size limit of an image\'s evidence, `omittedManifests`: manifests of the chain not listed in `provenance`',
  })
  @IsObject()
  details!: Record<string, string | number | boolean | null>;

  /** Content Credentials findings: the provenance chain (signer, time stamp, actions, source type, generator). */
  @ApiPropertyOptional({
    type: () => [AiDetectionProvenanceStep],
    description: "Content Credentials findings only: the chain from the file's own manifest through its ingredients",
  })
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => AiDetectionProvenanceStep)
  provenance?: AiDetectionProvenanceStep[];
}

/** Images the detector stored for one file; absent ones are null. */
export class AiDetectionImages {
  /** WebP copy of the input, longer side ≤ 1600 px (null when the input already is that small: use the original). */
  @IsOptional() @IsNestedObject(() => StoredObjectRef)
  preview!: StoredObjectRef | null;

  /** WebP thumbnail within 740×400, aspect ratio kept. */
  @IsNestedObject(() => StoredObjectRef)
  thumbnail!: StoredObjectRef;

  /** Heatmap and overlay: WebP, longer side ≤ 1600 px; null unless asked for and regional evidence exists. */
  @IsOptional() @IsNestedObject(() => StoredObjectRef)
  heatmap!: StoredObjectRef | null;

  @IsOptional() @IsNestedObject(() => StoredObjectRef)
  overlay!: StoredObjectRef | null;
}

/** `evt.aidetect.detection.completed` */
export class AiDetectionCompletedEvent {
  static readonly subject = EventSubjects.aiDetectionCompleted;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]+(-[0-9]+)?$/)
  fileId!: string;

  @IsNumber() @Min(0) @Max(1)
  probability!: number;

  @IsIn(AI_DETECTION_CATEGORIES)
  category!: AiDetectionCategory;

  /** Optional only for events published before verdicts existed (`aiDetectionVerdictOf` fills it in). */
  @IsOptional() @IsIn(AI_DETECTION_VERDICTS)
  verdict?: AiDetectionVerdict;

  /** true: no finding was counted (probability 0.5); findings of weight 0 may still be listed. */
  @IsBoolean()
  noEvidence!: boolean;

  @IsString()
  statement!: string;

  @IsArray() @ValidateNested({ each: true }) @Type(() => AiDetectionEvidence)
  evidence!: AiDetectionEvidence[];

  /** Why there is no heatmap (only file-level evidence), or null. */
  @IsOptional() @IsString()
  heatmapNote!: string | null;

  @IsNestedObject(() => AiDetectionImages)
  images!: AiDetectionImages;

  /** The input as the detector read it (its report certifies these bytes). Optional for events published before it existed. */
  @IsOptional() @IsNestedObject(() => ExaminedBytes)
  examined?: ExaminedBytes;
}

/** `evt.aidetect.detection.failed`: the file can never be analysed. */
export class AiDetectionFailedEvent {
  static readonly subject = EventSubjects.aiDetectionFailed;

  @Matches(/^[0-9]{1,20}$/)
  orderId!: string;

  @Matches(/^[0-9]+(-[0-9]+)?$/)
  fileId!: string;

  /** OrderFailureCode */
  @IsString()
  code!: string;
}

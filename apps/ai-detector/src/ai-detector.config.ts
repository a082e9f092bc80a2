import { ConfigValidationError, CoreConfig, StorageConfig, StorageEnv, toBoolean, toCoreConfig, toStorageConfig, toWorkerSettings, validateEnv, withWorkerEnv, WorkerSettings } from '@cp/config';
import { C2paTrustConfig, ClassifierConfig } from '@cp/ai-detection';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';

/** The worker variables (`AI_DETECTION_MAX_PIXELS`, `_MAX_INPUT_BYTES`, `_CONCURRENCY`, `_MAX_ATTEMPTS`) come from `withWorkerEnv`. */
export class AiDetectorEnv extends withWorkerEnv(StorageEnv, 'AI_DETECTION') {
  override PORT: number = 3104;

  /** Budget of one C2PA read (the reader runs in its own process); past it the signal says "could not be read". */
  @IsInt()
  @Min(100)
  @Max(600_000)
  C2PA_READ_DEADLINE_MS: number = 30_000;

  /** JavaScript heap of the C2PA reader process, in MiB; a manifest that needs more "could not be read". */
  @IsInt()
  @Min(16)
  @Max(16_384)
  C2PA_READER_MAX_HEAP_MB: number = 256;

  /**
   * Trust lists of the C2PA reader (PEM files); unset: the dated snapshots shipped in libs/ai-detection/trust
   * (docs/ai-detection.md). A file without a certificate stops the service at start.
   */
  @IsOptional()
  @IsString()
  C2PA_TRUST_LIST_PATH?: string;

  @IsOptional()
  @IsString()
  C2PA_TSA_TRUST_LIST_PATH?: string;

  /** The frozen interim list (reported apart, never counted as trust); `false` skips it. A switch like any other. */
  @Transform(toBoolean)
  @IsBoolean()
  C2PA_INTERIM_LIST: boolean = true;

  @IsOptional()
  @IsString()
  C2PA_INTERIM_ANCHORS_PATH?: string;

  @IsOptional()
  @IsString()
  C2PA_INTERIM_ALLOWED_PATH?: string;

  /** ONNX model of a pixel classifier; unset: the classifier signal is absent (never a default guess). */
  @IsOptional()
  @IsString()
  AI_CLASSIFIER_MODEL_PATH?: string;

  @IsInt()
  @Min(8)
  @Max(1024)
  AI_CLASSIFIER_INPUT_SIZE: number = 224;

  /** Three comma-separated numbers: per-channel mean and std of 0–1 pixel values. */
  @IsString()
  AI_CLASSIFIER_MEAN = '0.485,0.456,0.406';

  @IsString()
  AI_CLASSIFIER_STD = '0.229,0.224,0.225';

  /**
   * Without a calibration file: multiplies the model's logit, the product capped at ±0.5 (an unsigned claim's
   * weight), so an uncalibrated model never decides alone.
   */
  @IsNumber()
  @Min(0)
  @Max(2)
  AI_CLASSIFIER_WEIGHT: number = 0.5;

  /** Patches per side (grid × grid patches feed the heatmap). */
  @IsInt()
  @Min(1)
  @Max(8)
  AI_CLASSIFIER_GRID: number = 4;

  /**
   * Calibration file of this model (`npm run admin -- ai-classifier calibrate`): its measured likelihood ratios
   * replace AI_CLASSIFIER_WEIGHT; a file made for another model is refused at start.
   */
  @IsOptional()
  @IsString()
  AI_CLASSIFIER_CALIBRATION_PATH?: string;
}

export interface AiDetectorConfig extends CoreConfig {
  storage: StorageConfig;
  detection: WorkerSettings & {
    classifier?: ClassifierConfig;
    /** The C2PA reader process: deadline of one read and heap. */
    c2pa: { deadlineMs: number; maxOldGenerationSizeMb: number };
    c2paTrust: C2paTrustConfig;
  };
}

function triple(name: string, value: string): [number, number, number] {
  const parts = value.split(',').map((v) => Number(v.trim()));
  if (parts.length !== 3 || parts.some((v) => !Number.isFinite(v))) {
    throw new ConfigValidationError([name], [`${name}: three comma-separated numbers`]);
  }
  return [parts[0], parts[1], parts[2]];
}

export function loadAiDetectorConfig(source: NodeJS.ProcessEnv = process.env): AiDetectorConfig {
  const env = validateEnv(AiDetectorEnv, source);
  const classifier: ClassifierConfig | undefined = env.AI_CLASSIFIER_MODEL_PATH
    ? {
        modelPath: env.AI_CLASSIFIER_MODEL_PATH,
        inputSize: env.AI_CLASSIFIER_INPUT_SIZE,
        mean: triple('AI_CLASSIFIER_MEAN', env.AI_CLASSIFIER_MEAN),
        std: triple('AI_CLASSIFIER_STD', env.AI_CLASSIFIER_STD),
        weight: env.AI_CLASSIFIER_WEIGHT,
        grid: env.AI_CLASSIFIER_GRID,
        ...(env.AI_CLASSIFIER_CALIBRATION_PATH ? { calibrationPath: env.AI_CLASSIFIER_CALIBRATION_PATH } : {}),
      }
    : undefined;
  return {
    ...toCoreConfig(env),
    storage: toStorageConfig(env),
    detection: {
      ...toWorkerSettings(env, 'AI_DETECTION'),
      classifier,
      c2pa: { deadlineMs: env.C2PA_READ_DEADLINE_MS, maxOldGenerationSizeMb: env.C2PA_READER_MAX_HEAP_MB },
      c2paTrust: {
        interim: env.C2PA_INTERIM_LIST,
        ...(env.C2PA_TRUST_LIST_PATH ? { trustListPath: env.C2PA_TRUST_LIST_PATH } : {}),
        ...(env.C2PA_TSA_TRUST_LIST_PATH ? { tsaTrustListPath: env.C2PA_TSA_TRUST_LIST_PATH } : {}),
        ...(env.C2PA_INTERIM_ANCHORS_PATH ? { interimAnchorsPath: env.C2PA_INTERIM_ANCHORS_PATH } : {}),
        ...(env.C2PA_INTERIM_ALLOWED_PATH ? { interimAllowedPath: env.C2PA_INTERIM_ALLOWED_PATH } : {}),
      },
    },
  };
}

export const AI_DETECTOR_CONFIG = Symbol('AI_DETECTOR_CONFIG');

import { ConfigValidationError } from '@cp/config';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadAiDetectorConfig, AiDetectorEnv } from './ai-detector.config';

describe('ai-detector configuration', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

  it('has no classifier unless a model path is configured (never a default model)', () => {
    expect(loadAiDetectorConfig(base).detection.classifier).toBeUndefined();
  });

  it('reads the classifier settings', () => {
    const config = loadAiDetectorConfig({ ...base, AI_CLASSIFIER_MODEL_PATH: '/models/m.onnx', AI_CLASSIFIER_MEAN: '0.5, 0.5,0.5', AI_CLASSIFIER_GRID: '2' });
    expect(config.detection.classifier).toEqual({
      modelPath: '/models/m.onnx',
      inputSize: 224,
      mean: [0.5, 0.5, 0.5],
      std: [0.229, 0.224, 0.225],
      weight: 0.5,
      grid: 2,
    });
  });

  it('reads the worker settings under AI_DETECTION_ (names and defaults of before the shared worker settings)', () => {
    expect(loadAiDetectorConfig(base).detection).toMatchObject({ maxPixels: 100_000_000, maxInputBytes: 200 * 1024 * 1024, concurrency: 1, maxAttempts: 4 });
    const env = { ...base, AI_DETECTION_MAX_PIXELS: '5000000', AI_DETECTION_MAX_INPUT_BYTES: '2048', AI_DETECTION_CONCURRENCY: '2', AI_DETECTION_MAX_ATTEMPTS: '6' };
    expect(loadAiDetectorConfig(env).detection).toMatchObject({ maxPixels: 5_000_000, maxInputBytes: 2048, concurrency: 2, maxAttempts: 6 });
  });

  it('reads the calibration file and the trust lists (shipped snapshots unless configured; the interim list can be switched off)', () => {
    const config = loadAiDetectorConfig({ ...base, AI_CLASSIFIER_MODEL_PATH: '/m.onnx', AI_CLASSIFIER_CALIBRATION_PATH: '/m.calibration.json' });
    expect(config.detection.classifier?.calibrationPath).toBe('/m.calibration.json');
    expect(loadAiDetectorConfig(base).detection.c2paTrust).toEqual({ interim: true });
    const trust = { ...base, C2PA_TRUST_LIST_PATH: '/trust/c2pa.pem', C2PA_TSA_TRUST_LIST_PATH: '/trust/tsa.pem', C2PA_INTERIM_LIST: 'false' };
    expect(loadAiDetectorConfig(trust).detection.c2paTrust).toEqual({ interim: false, trustListPath: '/trust/c2pa.pem', tsaTrustListPath: '/trust/tsa.pem' });
    expect(() => loadAiDetectorConfig({ ...base, C2PA_INTERIM_LIST: 'maybe' })).toThrow(ConfigValidationError);
  });

  it.each([
    ['no', false],
    ['0', false],
    ['FALSE', false],
    ['yes', true],
    ['1', true],
  ])('reads C2PA_INTERIM_LIST=%s as any other switch (%s)', (word, interim) => {
    expect(loadAiDetectorConfig({ ...base, C2PA_INTERIM_LIST: word }).detection.c2paTrust.interim).toBe(interim);
  });

  it('names a malformed normalisation', () => {
    expect(() => loadAiDetectorConfig({ ...base, AI_CLASSIFIER_MODEL_PATH: '/m.onnx', AI_CLASSIFIER_STD: '0.2,0.2' })).toThrow(ConfigValidationError);
  });
});

describeConfigurationDoc('ai-detector', AiDetectorEnv);

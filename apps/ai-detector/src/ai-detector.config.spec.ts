import { ConfigValidationError } from '@cp/config';
import { loadAiDetectorConfig } from './ai-detector.config';

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

  it('names a malformed normalisation', () => {
    expect(() => loadAiDetectorConfig({ ...base, AI_CLASSIFIER_MODEL_PATH: '/m.onnx', AI_CLASSIFIER_STD: '0.2,0.2' })).toThrow(ConfigValidationError);
  });
});

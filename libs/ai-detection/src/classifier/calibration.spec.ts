import { UNCALIBRATED_CLASSIFIER_MAX } from '../weights';
import { buildCalibration, calibrationBand, parseCalibration, rocAuc, upperBound95 } from './calibration';

const options = { bands: 10, maxFalsePositiveRate: 0.05, thresholds: [0.5, 0.9], model: { fileName: 'm.onnx', sha256: 'a'.repeat(64) }, now: new Date('2026-11-26T00:00:00Z') };
const spread = (n: number, from: number, to: number): number[] => Array.from({ length: n }, (_, i) => from + ((to - from) * (i + 0.5)) / n);

describe('classifier calibration', () => {
  it('ROC AUC is the chance a generated image outscores a real one', () => {
    expect(rocAuc([0.1, 0.2], [0.8, 0.9])).toBe(1);
    expect(rocAuc([0.8, 0.9], [0.1, 0.2])).toBe(0);
    expect(rocAuc([0.5, 0.5], [0.5, 0.5])).toBe(0.5);
    expect(rocAuc([0.1, 0.6], [0.5, 0.9])).toBe(0.75);
  });

  it('bounds a rate seen 0 times in n trials near 3/n (Clopper–Pearson, 95%)', () => {
    expect(upperBound95(0, 100)).toBeCloseTo(0.0295, 3);
    expect(upperBound95(5, 100)).toBeGreaterThan(0.05);
    expect(upperBound95(0, 0)).toBe(1);
  });

  it('with enough separated samples, the high bands may decide, the middle abstains, the low bands point to a capture', () => {
    // 200 real images scored 0–0.5, 200 generated scored 0.5–1, and 100 of each in 0.4–0.6 that look alike
    const real = [...spread(200, 0, 0.4), ...spread(100, 0.4, 0.6)];
    const generated = [...spread(200, 0.6, 1), ...spread(100, 0.4, 0.6)];
    const calibration = buildCalibration(real, generated, options);
    expect(calibration.samples).toEqual({ real: 300, generated: 300 });
    expect(calibration.rocAuc).toBeGreaterThan(0.9);
    expect(calibration.decisiveAiFrom).toBe(0.6);
    expect(calibration.decisiveCaptureBelow).toBe(0.4);
    expect(calibrationBand(calibration, 0.95).weight).toBeGreaterThan(Math.log(3));
    expect(calibrationBand(calibration, 0.5).weight).toBe(0);
    expect(calibrationBand(calibration, 0.05).weight).toBeLessThan(-Math.log(3));
    expect(calibration.thresholds[0]).toMatchObject({ threshold: 0.5, falsePositiveRate: 50 / 300 });
    expect(calibration.createdAt).toBe('2026-11-26T00:00:00.000Z');
  });

  it('too few real images to bound the false-positive rate: the classifier never decides alone', () => {
    const calibration = buildCalibration(spread(20, 0, 0.5), spread(20, 0.5, 1), options);
    expect(calibration.decisiveAiFrom).toBeNull();
    for (const band of calibration.bands) expect(Math.abs(band.weight)).toBeLessThanOrEqual(UNCALIBRATED_CLASSIFIER_MAX);
  });

  it('reads a file back with its weights recomputed, not as written, and refuses what is not a calibration', () => {
    const calibration = buildCalibration(spread(20, 0, 0.5), spread(20, 0.5, 1), options);
    const tampered = { ...calibration, bands: calibration.bands.map((band) => ({ ...band, weight: 4 })) };
    const read = parseCalibration(JSON.stringify(tampered));
    expect(read.bands.map((band) => band.weight)).toEqual(calibration.bands.map((band) => band.weight));
    expect(() => parseCalibration('{"version":2}')).toThrow(/not a classifier calibration/);
    expect(() => parseCalibration(JSON.stringify({ ...calibration, bands: [{ from: 0, to: 1, likelihoodRatio: -1 }] }))).toThrow(/out-of-range/);
  });
});

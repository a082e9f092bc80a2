import 'reflect-metadata';
import { ConfigValidationError } from '@cp/config';
import { describeConfigurationDoc } from '@cp/config/testing';
import { loadUploadsConfig, UploadsEnv } from './uploads.config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('uploads configuration: source fetch', () => {
  it('has a whole-download deadline and a byte cap by default', () => {
    expect(loadUploadsConfig(base).sourceFetch).toMatchObject({ deadlineMs: 120_000, maxBytes: 32 * 1024 * 1024, allowPrivate: false });
  });

  it('reads them, and refuses a deadline under a second or over ten minutes', () => {
    expect(loadUploadsConfig({ ...base, SOURCE_FETCH_DEADLINE_MS: '5000', SOURCE_FETCH_MAX_BYTES: '4096' }).sourceFetch).toMatchObject({ deadlineMs: 5000, maxBytes: 4096 });
    expect(() => loadUploadsConfig({ ...base, SOURCE_FETCH_DEADLINE_MS: '10' })).toThrow(ConfigValidationError);
    // One account's fetches at once (its share): 4 by default, at least 1.
    expect(loadUploadsConfig(base).sourceFetch.perAccount).toBe(4);
    expect(loadUploadsConfig({ ...base, SOURCE_FETCHES_PER_ACCOUNT: '9' }).sourceFetch.perAccount).toBe(9);
    expect(() => loadUploadsConfig({ ...base, SOURCE_FETCHES_PER_ACCOUNT: '0' })).toThrow(/SOURCE_FETCHES_PER_ACCOUNT/);
    expect(() => loadUploadsConfig({ ...base, SOURCE_FETCH_DEADLINE_MS: '3600000' })).toThrow(/SOURCE_FETCH_DEADLINE_MS/);
  });

  it('production refuses the private-address switch and the private-address allow-list', () => {
    const production = { ...base, NODE_ENV: 'production', TEST_UPLOAD_SECRET: 'a-production-secret-value' };
    expect(() => loadUploadsConfig({ ...production, SOURCE_FETCH_ALLOW_PRIVATE: 'true' })).toThrow(/SOURCE_FETCH_ALLOW_PRIVATE/);
    expect(() => loadUploadsConfig({ ...production, SOURCE_FETCH_ALLOWED_IPS: '127.0.0.1' })).toThrow(/SOURCE_FETCH_ALLOWED_IPS/);
    expect(loadUploadsConfig(production).sourceFetch.allowedIps).toEqual([]);
    expect(loadUploadsConfig({ ...base, SOURCE_FETCH_ALLOWED_IPS: '127.0.0.1' }).sourceFetch.allowedIps).toEqual(['127.0.0.1']);
  });
});

describe('uploads configuration: input limits', () => {
  it('reads the workers\' own limits, with their default of 200 MiB', () => {
    expect(loadUploadsConfig(base).inputLimits).toEqual({ watermark: 200 * 1024 * 1024, aiDetection: 200 * 1024 * 1024 });
    expect(loadUploadsConfig({ ...base, WATERMARK_MAX_INPUT_BYTES: '4096', AI_DETECTION_MAX_INPUT_BYTES: '8192' }).inputLimits).toEqual({ watermark: 4096, aiDetection: 8192 });
    expect(() => loadUploadsConfig({ ...base, WATERMARK_MAX_INPUT_BYTES: '10' })).toThrow(/WATERMARK_MAX_INPUT_BYTES/);
  });
});

describe('uploads configuration: upload window', () => {
  it("reads the orders service's UPLOAD_WINDOW_HOURS, with its default of 12 hours and its bound", () => {
    expect(loadUploadsConfig(base).uploadWindowMs).toBe(12 * 3600_000);
    expect(loadUploadsConfig({ ...base, UPLOAD_WINDOW_HOURS: '2' }).uploadWindowMs).toBe(2 * 3600_000);
    expect(() => loadUploadsConfig({ ...base, UPLOAD_WINDOW_HOURS: '0' })).toThrow(/UPLOAD_WINDOW_HOURS/);
  });
});

describe('uploads configuration: upload URL validity', () => {
  it('reads UPLOAD_URL_SECONDS up to 7 days, and refuses at start what storage would refuse to presign on every order', () => {
    expect(loadUploadsConfig({ ...base, UPLOAD_URL_SECONDS: '604800' }).uploadUrlSeconds).toBe(604_800);
    expect(() => loadUploadsConfig({ ...base, UPLOAD_URL_SECONDS: '604801' })).toThrow(/UPLOAD_URL_SECONDS/);
  });
});

describeConfigurationDoc('uploads', UploadsEnv);

import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AntiAiJob, AntiAiOutputTarget } from './anti-ai';

describe('AntiAiOutputTarget (the zero-copy target a job carries)', () => {
  const errorsOf = (url: string): string[] =>
    validateSync(plainToInstance(AntiAiOutputTarget, { url, presignedUrlExpiresAt: '2026-12-30T00:00:00Z' })).map((error) => error.property);
  const longUrl = (length: number): string => {
    const base = 'https://bucket.s3.amazonaws.com/k.png?X-Amz-Security-Token=';
    return base + 'a'.repeat(length - base.length);
  };

  // Attack review: creation took targets up to 4,096 characters, but the job's own rule (validator.js isURL, 2,083 at
  // most) refused them, so every job of such an order was parked as an invalid payload and its outputs stayed queued.
  it('carries every target creation accepts: HTTPS up to 4,096 characters', () => {
    expect(errorsOf(longUrl(2100))).toEqual([]);
    expect(errorsOf(longUrl(4096))).toEqual([]);
    expect(errorsOf('https://127.0.0.1:9443/bucket/k.png?X-Amz-Signature=ab')).toEqual([]);
  });

  it('refuses what no delivery may take', () => {
    expect(errorsOf(longUrl(4097))).toEqual(['url']);
    expect(errorsOf('http://example.com/k.png')).toEqual(['url']);
    expect(errorsOf('https://user:pw@example.com/k.png')).toEqual(['url']);
    expect(errorsOf('not a url')).toEqual(['url']);
  });
});

describe('AntiAiJob.tdmPolicyUrl', () => {
  const job = (tdmPolicyUrl: string): AntiAiJob =>
    plainToInstance(AntiAiJob, {
      orderId: '248',
      outputFileId: '1046-1',
      accountId: '1',
      strength: 'low',
      input: { bucket: 'cp-inputs', key: '1/248/inputs/1046/a.png', fileName: 'a.png' },
      tdmPolicyUrl,
    });

  // Attack review: creation accepts what the WHATWG URL parser accepts on a public host (an underscore in a host name,
  // a space in the path), validator.js' isURL did not, and the order's only job was parked as an invalid payload.
  it('carries every policy URL creation accepts', () => {
    for (const url of ['https://my_host.example.com/policy', 'https://example.com/tdm policy.json', 'https://example.com/tdm.json']) {
      expect(validateSync(job(url))).toEqual([]);
    }
  });

  it('refuses a URL that is not HTTPS', () => {
    expect(validateSync(job('http://example.com/tdm.json')).map((error) => error.property)).toEqual(['tdmPolicyUrl']);
  });
});

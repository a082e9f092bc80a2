import { loggedUrl } from './logged-url';

describe('loggedUrl', () => {
  it('redacts the token of a test-upload URL and drops its query', () => {
    expect(loggedUrl('/api/v2/test-uploads/eyJvcmRlcklkIjoiNyJ9.c2lnbmF0dXJl')).toBe('/api/v2/test-uploads/[redacted]');
    expect(loggedUrl('/api/v2/test-uploads/abc.def?x=1')).toBe('/api/v2/test-uploads/[redacted]');
    expect(loggedUrl('//API/v2//Test-Uploads/abc.def/more')).toBe('//API/v2//Test-Uploads/[redacted]');
    expect(loggedUrl('/api/v2/test-uploads')).toBe('/api/v2/test-uploads');
  });

  it('keeps only the path of a v2 result URL: its presigned query is the credential', () => {
    const url = '/api/v2/results/cp-outputs/5/7/outputs/1-0/a.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k%2F20261101&X-Amz-Signature=3f1a9c';
    expect(loggedUrl(url)).toBe('/api/v2/results/cp-outputs/5/7/outputs/1-0/[name]');
  });

  it("names a result object by its ids: the key's last segment is the client's file name (personal data in logs and traces)", () => {
    expect(loggedUrl('/api/v2/results/cp-outputs/5/7/outputs/1-0/Jane%20Doe%20passport-watermarked-1-0.png')).toBe('/api/v2/results/cp-outputs/5/7/outputs/1-0/[name]');
    expect(loggedUrl('/api/v2/results/cp-inputs/5/7/inputs/12/Jane%20Doe.png?X-Amz-Signature=abc')).toBe('/api/v2/results/cp-inputs/5/7/inputs/12/[name]');
    // Objects whose name is ours (the thumbnail, the ZIP) keep it.
    expect(loggedUrl('/api/v2/results/cp-outputs/5/7/thumbnail.webp')).toBe('/api/v2/results/cp-outputs/5/7/thumbnail.webp');
  });

  it('drops a presigned query wherever it appears, and keeps every other URL as received', () => {
    expect(loggedUrl('/api/v3/orders/42?X-Amz-Signature=abc')).toBe('/api/v3/orders/42');
    expect(loggedUrl('/api/v3/orders/42?a=1&x-amz-credential=abc')).toBe('/api/v3/orders/42');
    expect(loggedUrl('/api/v2/orders/stats/recent?date=2026-11-01')).toBe('/api/v2/orders/stats/recent?date=2026-11-01');
    expect(loggedUrl('/api/v2/test-uploadsX/abc')).toBe('/api/v2/test-uploadsX/abc');
  });
});

import { ContentProtectionError, WebhookVerificationError } from '@cp/sdk';
import { errorOutput, protectHint, traceHint } from './error-output';

/** An API refusal as the SDK throws it (its message is "CODE (HTTP status)"). */
function refused(code: 'VALIDATION_FAILED' | 'RESOURCE_NOT_FOUND', status: number): ContentProtectionError {
  return new ContentProtectionError(code, `${code} (HTTP ${status})`, { status });
}

describe('errorOutput (how cpx prints a failure on stderr)', () => {
  it('prints the code of an API refusal once, with the HTTP status', () => {
    const text = errorOutput(refused('VALIDATION_FAILED', 400), null, false);
    expect(text).toBe('error: VALIDATION_FAILED (HTTP 400)\n');
    expect(text.match(/VALIDATION_FAILED/g)).toHaveLength(1);
  });

  it('adds the local hint, one line each, to a VALIDATION_FAILED refusal by the API', () => {
    expect(errorOutput(refused('VALIDATION_FAILED', 400), 'first\nsecond', false)).toBe('error: VALIDATION_FAILED (HTTP 400)\nhint: first\nhint: second\n');
  });

  it('keeps the hint off other codes and off the SDK’s own checks (no HTTP status: its message says why)', () => {
    expect(errorOutput(refused('RESOURCE_NOT_FOUND', 404), 'a hint', false)).toBe('error: RESOURCE_NOT_FOUND (HTTP 404)\n');
    const local = new ContentProtectionError('VALIDATION_FAILED', 'trace uploads both files: give paths or bytes, not URLs');
    expect(errorOutput(local, 'a hint', false)).toBe('error: VALIDATION_FAILED: trace uploads both files: give paths or bytes, not URLs\n');
  });

  it('puts the code before a message that does not start with it', () => {
    expect(errorOutput(new ContentProtectionError('FILE_ERROR', 'cannot read x.jpg: ENOENT'), null, false)).toBe('error: FILE_ERROR: cannot read x.jpg: ENOENT\n');
    expect(errorOutput(new WebhookVerificationError('no signature header'), null, false)).toMatch(/^error: [A-Z_]+: no signature header\n$/);
    expect(errorOutput(new Error('bug'), null, false)).toBe('error: UNEXPECTED: bug\n');
  });

  it('--json: code, message, status and hint as fields', () => {
    expect(JSON.parse(errorOutput(refused('VALIDATION_FAILED', 400), 'notes.txt has the extension .txt', true))).toEqual({
      error: { code: 'VALIDATION_FAILED', message: 'VALIDATION_FAILED (HTTP 400)', status: 400, hint: 'notes.txt has the extension .txt' },
    });
    expect(JSON.parse(errorOutput(new ContentProtectionError('FILE_ERROR', 'cannot read x'), 'ignored', true))).toEqual({ error: { code: 'FILE_ERROR', message: 'cannot read x' } });
  });
});

describe('protectHint (spec 4.1 and 8, checked on the command line)', () => {
  it('is null when nothing on the command line breaks a rule (extensions in any case)', () => {
    expect(protectHint(['photo.jpg', 'dir/contract.PDF', 'scan.tiff', 'https://example.com/a/banner.webp'], ['alice', 'bob'])).toBeNull();
  });

  it('names a file whose extension is outside the list, and the list', () => {
    expect(protectHint(['photo.jpg', 'notes/notes.txt'], ['alice'])).toBe('notes.txt has the extension .txt; protect accepts jpg, jpeg, png, webp, bmp, tif, tiff, pdf');
    expect(protectHint(['README'], ['alice'])).toBe('README has no file extension; protect accepts jpg, jpeg, png, webp, bmp, tif, tiff, pdf');
    expect(protectHint(['https://example.com/files/page.html?x=1'], ['alice'])).toMatch(/^page\.html has the extension \.html;/);
  });

  it('names the limits on files, recipients and their texts', () => {
    expect(protectHint(Array.from({ length: 101 }, (_, i) => `${i}.jpg`), ['a'])).toBe('101 files; at most 100 per order');
    expect(protectHint(['a.jpg'], Array.from({ length: 11 }, (_, i) => `r${i}`))).toBe('11 recipients; at most 10 per file');
    expect(protectHint(['a.jpg'], [''])).toBe('an empty --recipient; each needs 1 to 1,000 characters');
    expect(protectHint(['a.jpg'], ['x'.repeat(1001)])).toBe('a --recipient of 1001 characters; at most 1,000');
    expect(protectHint([`${'n'.repeat(252)}.jpg`], ['a'])).toMatch(/is a file name of 256 characters; at most 255$/);
  });
});

describe('traceHint (spec 4.2 rule 1, checked on the command line)', () => {
  it('is null for pairs the API accepts', () => {
    expect(traceHint('photo.jpg', 'leak.webp')).toBeNull();
    expect(traceHint('scan.bmp', 'leak.TIF')).toBeNull();
    expect(traceHint('contract.pdf', 'leak.pdf')).toBeNull();
    expect(traceHint('contract.pdf', 'screenshot.png')).toBeNull();
  });

  it('names a file to check that does not suit the original’s kind', () => {
    expect(traceHint('photo.jpg', 'leak.pdf')).toBe('leak.pdf has the extension .pdf; the file to check against an image original accepts jpg, jpeg, png, webp, bmp, tif, tiff');
    expect(traceHint('contract.pdf', 'leak.webp')).toBe('leak.webp has the extension .webp; the file to check against a PDF original accepts pdf, png, jpg, jpeg');
    expect(traceHint('photo.jpg', 'leak.txt')).toMatch(/^leak\.txt has the extension \.txt;/);
  });

  it('names an original outside the list, and then only the original', () => {
    expect(traceHint('notes.txt', 'leak.txt')).toBe('notes.txt has the extension .txt; an original (--original) accepts jpg, jpeg, png, webp, bmp, tif, tiff, pdf');
  });
});

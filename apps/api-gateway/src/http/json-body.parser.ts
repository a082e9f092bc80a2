import { json } from 'express';
import type { RequestHandler } from 'express';

/**
 * A body whose bytes are not a valid text in its charset. Marked like body-parser's own errors (a 4xx `status`,
 * `expose`), so the pipeline answers it as every unreadable body: 400 VALIDATION_FAILED.
 */
export class UndecodableBodyError extends Error {
  readonly status = 400;
  readonly expose = true;
  readonly type = 'charset.undecodable';

  constructor(charset: string) {
    super(`request body is not valid ${charset}`);
  }
}

// `fatal`: an invalid sequence throws instead of becoming U+FFFD. A BOM is allowed (and skipped) as before.
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF16LE = new TextDecoder('utf-16le', { fatal: true });
const UTF16BE = new TextDecoder('utf-16be', { fatal: true });

function decodes(decoder: TextDecoder, bytes: Uint8Array): boolean {
  try {
    decoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `bytes` are a valid text in `charset` (lower case, as body-parser passes it; only `utf-*` charsets get
 * this far). body-parser decodes with iconv-lite, which never refuses: invalid UTF-8 becomes U+FFFD, an odd last
 * byte of UTF-16 disappears, an out-of-range UTF-32 unit becomes U+FFFD. So the bytes are checked strictly
 * first, and the lenient decoding that follows only ever sees valid text.
 *
 * - UTF-8 (RFC 8259's JSON encoding, and the default) and UTF-16 are read; UTF-16 without `le`/`be` follows its
 *   BOM, and without one is accepted when valid in either byte order (iconv-lite guesses the order; a lone
 *   surrogate its guess produces is refused by the input hygiene after parsing).
 * - Any other `utf-*` charset (UTF-32, UTF-7: not JSON encodings, and iconv-lite's decoders of them are lenient)
 *   is refused as a body that cannot be read.
 */
export function isStrictlyDecodable(bytes: Uint8Array, charset: string): boolean {
  switch (charset) {
    case 'utf-8':
      return decodes(UTF8, bytes);
    case 'utf-16le':
      return bytes.length % 2 === 0 && decodes(UTF16LE, bytes);
    case 'utf-16be':
      return bytes.length % 2 === 0 && decodes(UTF16BE, bytes);
    case 'utf-16':
      if (bytes.length % 2 !== 0) {
        return false;
      }
      if (bytes[0] === 0xff && bytes[1] === 0xfe) {
        return decodes(UTF16LE, bytes);
      }
      if (bytes[0] === 0xfe && bytes[1] === 0xff) {
        return decodes(UTF16BE, bytes);
      }
      return decodes(UTF16LE, bytes) || decodes(UTF16BE, bytes);
    default:
      return false;
  }
}

/**
 * The JSON body parser of every route that takes a body (v2, v3, webhooks, reports): body-parser's (size limit,
 * Content-Encoding, charset check, strict JSON), with its `verify` hook refusing bytes that are not valid text in
 * their charset. `verify` sees the body after gzip/deflate/br decoding and before the text decoding.
 */
export function strictJsonBodyParser(limitBytes: number): RequestHandler {
  return json({
    limit: limitBytes,
    strict: true,
    verify: (_request, _response, bytes, charset) => {
      // body-parser passes the request's charset, or 'utf-8' when it names none.
      if (!isStrictlyDecodable(bytes, charset.toLowerCase())) {
        throw new UndecodableBodyError(charset);
      }
    },
  });
}

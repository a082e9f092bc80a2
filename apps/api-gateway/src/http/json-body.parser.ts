import { json } from 'express';
import type { RequestHandler } from 'express';
import { createScanner, SyntaxKind } from 'jsonc-parser';

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

/**
 * A body whose JSON object repeats a member name. JSON.parse keeps the last value silently, so what the client
 * meant is unknown, and another parser (a proxy, a log pipeline, the client's own) may read the first: I-JSON
 * (RFC 7493, 2.3) forbids duplicate names. Answered as every unreadable body: 400 VALIDATION_FAILED.
 */
export class DuplicateMemberBodyError extends Error {
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.duplicate.member';

  constructor() {
    super('request body repeats a member name in one object');
  }
}

// `fatal`: an invalid sequence throws instead of becoming U+FFFD. A BOM is allowed (and skipped) as before.
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF16LE = new TextDecoder('utf-16le', { fatal: true });
const UTF16BE = new TextDecoder('utf-16be', { fatal: true });

function decoded(decoder: TextDecoder, bytes: Uint8Array): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The text of `bytes` in `charset` (lower case, as body-parser passes it; only `utf-*` charsets get this far), or
 * null when they are not a valid text in it. body-parser decodes with iconv-lite, which never refuses: invalid
 * UTF-8 becomes U+FFFD, an odd last byte of UTF-16 disappears, an out-of-range UTF-32 unit becomes U+FFFD. So the
 * bytes are checked strictly first, and the lenient decoding that follows only ever sees valid text.
 *
 * - UTF-8 (RFC 8259's JSON encoding, and the default) and UTF-16 are read; UTF-16 without `le`/`be` follows its
 *   BOM, and without one is accepted when valid in either byte order (iconv-lite guesses the order; a lone
 *   surrogate its guess produces is refused by the input hygiene after parsing).
 * - Any other `utf-*` charset (UTF-32, UTF-7: not JSON encodings, and iconv-lite's decoders of them are lenient)
 *   is refused as a body that cannot be read.
 */
export function strictlyDecoded(bytes: Uint8Array, charset: string): string | null {
  switch (charset) {
    case 'utf-8':
      return decoded(UTF8, bytes);
    case 'utf-16le':
      return bytes.length % 2 === 0 ? decoded(UTF16LE, bytes) : null;
    case 'utf-16be':
      return bytes.length % 2 === 0 ? decoded(UTF16BE, bytes) : null;
    case 'utf-16':
      if (bytes.length % 2 !== 0) {
        return null;
      }
      if (bytes[0] === 0xff && bytes[1] === 0xfe) {
        return decoded(UTF16LE, bytes);
      }
      if (bytes[0] === 0xfe && bytes[1] === 0xff) {
        return decoded(UTF16BE, bytes);
      }
      return decoded(UTF16LE, bytes) ?? decoded(UTF16BE, bytes);
    default:
      return null;
  }
}

/**
 * Whether an object of the JSON `text` names a member twice, after unescaping (`"a"` and `"\u0061"` are one
 * name). A token scan with an explicit stack, so a deeply nested body costs heap, not call stack; text that is not
 * JSON gives an answer of no meaning and is refused by the parse that follows.
 */
export function hasDuplicateMember(text: string): boolean {
  const scanner = createScanner(text, true);
  // One entry per open object (its names so far) or array (null); `expectName` is true after `{` and after a `,` in an object.
  const open: Array<Set<string> | null> = [];
  let expectName = false;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    const names = open.length > 0 ? open[open.length - 1] : null;
    switch (token) {
      case SyntaxKind.OpenBraceToken:
        open.push(new Set());
        expectName = true;
        break;
      case SyntaxKind.OpenBracketToken:
        open.push(null);
        expectName = false;
        break;
      case SyntaxKind.CloseBraceToken:
      case SyntaxKind.CloseBracketToken:
        open.pop();
        expectName = false;
        break;
      case SyntaxKind.CommaToken:
        expectName = names !== null;
        break;
      case SyntaxKind.StringLiteral:
        if (expectName && names) {
          const name = scanner.getTokenValue();
          if (names.has(name)) {
            return true;
          }
          names.add(name);
        }
        expectName = false;
        break;
      default:
        expectName = false;
    }
  }
  return false;
}

/**
 * The JSON body parser of every route that takes a body (v2, v3, webhooks, reports): body-parser's (size limit,
 * Content-Encoding, charset check, strict JSON), with its `verify` hook refusing bytes that are not valid text in
 * their charset and objects that repeat a member name. `verify` sees the body after gzip/deflate/br decoding and
 * before the text decoding.
 */
export function strictJsonBodyParser(limitBytes: number): RequestHandler {
  return json({
    limit: limitBytes,
    strict: true,
    verify: (_request, _response, bytes, charset) => {
      // body-parser passes the request's charset, or 'utf-8' when it names none.
      const text = strictlyDecoded(bytes, charset.toLowerCase());
      if (text === null) {
        throw new UndecodableBodyError(charset);
      }
      if (hasDuplicateMember(text)) {
        throw new DuplicateMemberBodyError();
      }
    },
  });
}

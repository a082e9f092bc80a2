// "Nothing outside the egress module opens an outbound connection to a caller-named place" (issue 29), checked on
// the source itself besides the lint rule: no service or library file (tests aside) imports an HTTP client or
// connects a socket, except the few whose destination is fixed configuration.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Fixed-configuration destinations (see eslint.config.mjs): the SDK and CLI call the user's API, the tracing SDK's setup (issue 33) posts spans to the operator's OTEL_EXPORTER_OTLP_ENDPOINT, and the storage
 * client's idle-limited transport (issue 35) talks to the configured S3 endpoint.
 */
const EXEMPT = [
  /^libs\/egress\//,
  /^libs\/testing\//,
  /^libs\/sdk\//,
  /^apps\/cli\//,
  /^libs\/tracing\/src\/tracing-sdk\.ts$/,
  /^libs\/storage\/src\/object-storage\.ts$/,
];

const CLIENT_MODULE = /^\s*import\s+(?!type\b)[^;]*?from\s+'(?:node:)?(?:https?|http2|undici|request-filtering-agent|axios|got|node-fetch|@opentelemetry\/exporter-[\w-]+)'/m;
const SOCKET_CONNECT = /^\s*import\s+(?!type\b)\{[^}]*\b(?:connect|createConnection)\b[^}]*\}\s*from\s+'(?:node:)?(?:net|tls)'/m;
const GLOBAL_FETCH = /(?<![.\w])fetch\s*\(/;

/** The text without comments: prose such as "test keys never fetch (…)" is not a call. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' || entry.name === 'assembly' ? [] : sources(full);
    }
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('egress boundary', () => {
  const files = ['apps', 'libs'].flatMap((dir) => sources(path.join(ROOT, dir))).map((file) => path.relative(ROOT, file).split(path.sep).join('/'));

  it('scans the services and libraries', () => {
    expect(files).toContain('apps/uploads/src/fetch/source-fetcher.ts');
    expect(files).toContain('libs/egress/src/egress-client.ts');
  });

  it('no file outside the egress module opens an outbound HTTP connection itself', () => {
    const offenders = files
      .filter((file) => !EXEMPT.some((pattern) => pattern.test(file)))
      .filter((file) => {
        const text = withoutComments(readFileSync(path.join(ROOT, file), 'utf8'));
        return CLIENT_MODULE.test(text) || SOCKET_CONNECT.test(text) || GLOBAL_FETCH.test(text);
      });
    expect(offenders).toEqual([]);
  });

  it('the patterns catch what they are meant to', () => {
    expect(CLIENT_MODULE.test("import { request } from 'node:https';")).toBe(true);
    expect(CLIENT_MODULE.test("import http from 'http';")).toBe(true);
    expect(CLIENT_MODULE.test("import { RequestFilteringHttpsAgent } from 'request-filtering-agent';")).toBe(true);
    expect(CLIENT_MODULE.test("import type { Server } from 'node:http';")).toBe(false);
    expect(CLIENT_MODULE.test("import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';")).toBe(true);
    expect(SOCKET_CONNECT.test("import { connect } from 'node:tls';")).toBe(true);
    expect(SOCKET_CONNECT.test("import { isIP } from 'node:net';")).toBe(false);
    expect(GLOBAL_FETCH.test('const r = await fetch(url);')).toBe(true);
    expect(GLOBAL_FETCH.test('this.fetcher.fetchInto(url)')).toBe(false);
    expect(GLOBAL_FETCH.test(withoutComments('// test keys never fetch (a comment)\n/* nor fetch (this) */ const a = 1;'))).toBe(false);
    expect(GLOBAL_FETCH.test(withoutComments("const url = 'https://x'; // a comment\nawait fetch(url);"))).toBe(true);
  });
});

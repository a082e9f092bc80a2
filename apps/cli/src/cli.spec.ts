import { ContentProtectionError, ExtractResult, WatermarkOrder, WebhookVerificationError } from '@cp/sdk';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Cli, orderLines } from './cli';
import { ExitCode, exitCodeFor } from './exit-codes';
import { Progress } from './progress';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

describe('cpx', () => {
  it('maps failures to the documented exit codes', () => {
    expect(exitCodeFor(new ContentProtectionError('AUTH_NOT_AUTHENTICATED', 'x'))).toBe(ExitCode.AUTH);
    expect(exitCodeFor(new ContentProtectionError('VALIDATION_FAILED', 'x'))).toBe(ExitCode.REJECTED);
    expect(exitCodeFor(new ContentProtectionError('ORDER_FAILED', 'x'))).toBe(ExitCode.ORDER_FAILED);
    expect(exitCodeFor(new ContentProtectionError('WAIT_TIMEOUT', 'x'))).toBe(ExitCode.TIMEOUT);
    expect(exitCodeFor(new ContentProtectionError('RATE_LIMIT_EXCEEDED', 'x'))).toBe(ExitCode.UNAVAILABLE);
    expect(exitCodeFor(new ContentProtectionError('FILE_ERROR', 'x'))).toBe(ExitCode.FILE_ERROR);
    expect(exitCodeFor(new WebhookVerificationError('x'))).toBe(ExitCode.REJECTED);
    expect(exitCodeFor(new Error('bug'))).toBe(ExitCode.FAILURE);
  });

  it('prints plain progress lines when stderr is not a terminal, uploads only at start and end', () => {
    const stderr = capture();
    const progress = new Progress({ stdout: new PassThrough(), stderr: stderr.stream }, false);
    progress.onProgress({ stage: 'created', orderId: '9' });
    for (const sent of [0, 10, 50, 100]) {
      progress.onProgress({ stage: 'upload', fileName: 'a.jpg', sent, total: 100 });
    }
    progress.onProgress({ stage: 'processing', orderId: '9', status: 'inProgress', done: 1, total: 2 });
    progress.onProgress({ stage: 'processing', orderId: '9', status: 'inProgress', done: 1, total: 2 });
    expect(stderr.text().split('\n')).toEqual(['order 9 created', 'upload a.jpg 0% of 100 bytes', 'upload a.jpg 100% of 100 bytes', 'order 9 inProgress 1/2 outputs', '']);
  });

  it('is silent with --json', () => {
    const stderr = capture();
    new Progress({ stdout: new PassThrough(), stderr: stderr.stream }, true).onProgress({ stage: 'created', orderId: '9' });
    expect(stderr.text()).toBe('');
  });

  it.each([
    [['protect', 'a.jpg'], 'give at least one --recipient'],
    [['orders', 'get', '1'], 'no API key'],
    [['report', '1', '--locale', 'fr-FR'], 'Allowed choices are ko-KR, en-US, ja-JP'],
    [['nonsense'], "unknown command 'nonsense'"],
    // outside review: these ended "UNEXPECTED: options.port should be >= 0 and < 65536" (exit 1)
    [['webhooks', 'listen', '--secret', 'whsec_x', '--port', 'abc'], "option '-p, --port <port>' argument 'abc' is invalid. must be a port number, 0 to 65535"],
    [['webhooks', 'listen', '--secret', 'whsec_x', '--port', '99999'], "argument '99999' is invalid. must be a port number, 0 to 65535"],
  ])('%j is a usage error (exit 2) that says why', async (argv, message) => {
    const stderr = capture();
    const code = await new Cli({ stdout: new PassThrough(), stderr: stderr.stream }, {}).run(argv);
    expect(code).toBe(ExitCode.USAGE);
    expect(stderr.text()).toContain(message);
  });

  it('webhooks listen on a port already taken: a usage error (exit 2) that names the address', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const stderr = capture();
      const code = await new Cli({ stdout: new PassThrough(), stderr: stderr.stream }, {}).run(['webhooks', 'listen', '--secret', 'whsec_x', '--port', String(port)]);
      expect(code).toBe(ExitCode.USAGE);
      expect(stderr.text()).toBe(`error: cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE)\n`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('--help works on every command, exit 0', async () => {
    for (const argv of [['--help'], ['protect', '--help'], ['trace', '--help'], ['report', '--help'], ['orders', 'get', '--help'], ['webhooks', 'listen', '--help']]) {
      const stdout = capture();
      expect(await new Cli({ stdout: stdout.stream, stderr: new PassThrough() }, {}).run(argv)).toBe(ExitCode.OK);
      expect(stdout.text()).toContain('Usage: cpx');
    }
  });

  it('orders get: an AI detection with no evidence reads "Cannot be determined", never the category alone', () => {
    const file = {
      fileId: '101', probability: 0.5, category: 'uncertain_ai' as const, verdict: 'cannot_be_determined' as const, noEvidence: true,
      statement: 'Cannot be determined: no provenance or generator evidence was found.', evidence: [], heatmapNote: null,
      images: { originalUrl: null, thumbnailUrl: null, heatmapUrl: null, overlayUrl: null },
    };
    const order = {
      orderId: '46', status: 'complete', processingDelayed: false, expiresAt: null, outputs: [], result: null, reports: [],
      detection: { probability: 0.5, category: 'uncertain_ai', verdict: 'cannot_be_determined', noEvidence: true, options: { generateHeatmap: false, generateOverlay: false }, files: [file] },
    } as unknown as WatermarkOrder;
    const lines = orderLines(order).split('\n');
    expect(lines[1]).toBe('detection\tCannot be determined: no evidence could be counted (50% is the starting even odds, not a measurement; spec category uncertain_ai)');
    expect(lines[2]).toMatch(/^file 101\tcannot_be_determined\tCannot be determined/);
    expect(lines.join('\n')).not.toMatch(/leaning/i);
  });

  describe('against a stand-in API', () => {
    let dir: string;
    let server: Server;
    let baseUrl: string;
    /** What the stand-in answers to the creation of an order: an HTTP status and a body. */
    let answer: { status: number; body: unknown };

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'cpx-spec-'));
      await Promise.all(['notes.txt', 'photo.jpg', 'leak.jpg'].map((name) => writeFile(path.join(dir, name), 'bytes')));
      server = createServer((request: IncomingMessage, response: ServerResponse) => {
        request.resume();
        request.on('end', () => {
          // Creation and every read give the same answer: a finished order needs no upload and no second poll.
          response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    });

    async function cpx(argv: string[]): Promise<{ code: ExitCode; stdout: string; stderr: string }> {
      const stdout = capture();
      const stderr = capture();
      const code = await new Cli({ stdout: stdout.stream, stderr: stderr.stream }, { CP_API_KEY: 'sk_test_x', CP_BASE_URL: baseUrl }).run(argv);
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    }

    function extractOrder(result: ExtractResult): { data: WatermarkOrder } {
      const files = [{ fileId: '1', uploadUrl: null }, { fileId: '2', uploadUrl: null }];
      return { data: { orderId: '126', status: 'complete', processingDelayed: false, expiresAt: null, files, outputs: [], result, reports: [] } as unknown as WatermarkOrder };
    }

    it('a refused .txt file: the code once with the HTTP status, and what the CLI can tell is wrong (exit 5)', async () => {
      answer = { status: 400, body: { code: 'VALIDATION_FAILED' } };
      const { code, stderr } = await cpx(['protect', path.join(dir, 'notes.txt'), '--recipient', 'alice']);
      expect(code).toBe(ExitCode.REJECTED);
      expect(stderr.split('\n').filter((line) => line.startsWith('error') || line.startsWith('hint'))).toEqual([
        'error: VALIDATION_FAILED (HTTP 400)',
        'hint: notes.txt has the extension .txt; protect accepts jpg, jpeg, png, webp, bmp, tif, tiff, pdf',
      ]);
    });

    // Outside review: a report that could not be written and a base URL that is no URL ended "UNEXPECTED" (exit 1)
    it('report: a PDF that cannot be written is a local file error (exit 9) that names the file', async () => {
      answer = { status: 200, body: { data: { orderId: '2', reportType: 'watermarkDetection', locale: 'en-US', status: 'completed', download: { url: `${baseUrl}/r.pdf`, expiresInSeconds: 300 }, failure: null } } };
      const out = path.join(dir, 'notes.txt', 'r.pdf');
      const { code, stderr } = await cpx(['report', '2', '--out', out]);
      expect(code).toBe(ExitCode.FILE_ERROR);
      expect(stderr).toContain(`error: FILE_ERROR: cannot write ${out}: ENOTDIR`);
    });

    it.each(['not-a-url', 'ftp://example.com', '127.0.0.1:3000'])('a base URL %j is a usage error (exit 2) that says what is expected', async (bad) => {
      for (const [argv, env] of [
        [['--base-url', bad, 'orders', 'get', '1'], { CP_API_KEY: 'sk_test_x' }],
        [['orders', 'get', '1'], { CP_API_KEY: 'sk_test_x', CP_BASE_URL: bad }],
      ] as const) {
        const stderr = capture();
        const code = await new Cli({ stdout: new PassThrough(), stderr: stderr.stream }, env).run([...argv]);
        expect(code).toBe(ExitCode.USAGE);
        expect(stderr.text()).toContain(`error: the API base URL ${JSON.stringify(bad)} is not an http:// or https:// URL (--base-url or CP_BASE_URL)`);
      }
    });

    it('a refusal the CLI sees no cause for gets no hint', async () => {
      answer = { status: 400, body: { code: 'VALIDATION_FAILED' } };
      const { code, stderr } = await cpx(['trace', '--original', path.join(dir, 'photo.jpg'), path.join(dir, 'leak.jpg')]);
      expect(code).toBe(ExitCode.REJECTED);
      expect(stderr).toContain('error: VALIDATION_FAILED (HTTP 400)\n');
      expect(stderr).not.toContain('hint');
    });

    it.each<[ExtractResult['detectionStatus'], ExitCode, RegExp]>([
      ['detected', ExitCode.OK, /^detected: bob\torder 126$/],
      ['not_detected', ExitCode.NOT_DETECTED, /^not_detected\torder /],
      ['inconclusive', ExitCode.TRACE_INCONCLUSIVE, /^inconclusive: .*neither detected nor clean/],
      ['error', ExitCode.TRACE_NOT_CHECKED, /^error: the file could not be checked/],
      ['unsupported', ExitCode.TRACE_UNSUPPORTED, /^unsupported: the file could not be checked/],
    ])('trace ending %s prints its line and exits %d', async (detectionStatus, exitCode, line) => {
      answer = { status: 200, body: extractOrder({ detectionStatus, watermarkText: detectionStatus === 'detected' ? 'bob' : null, reportSupported: false }) };
      const { code, stdout } = await cpx(['trace', '--original', path.join(dir, 'photo.jpg'), path.join(dir, 'leak.jpg')]);
      expect(code).toBe(exitCode);
      expect(stdout.trimEnd()).toMatch(line);
    });

    it('trace --json: the result as JSON, the same exit code', async () => {
      answer = { status: 200, body: extractOrder({ detectionStatus: 'error', watermarkText: null, reportSupported: false }) };
      const { code, stdout } = await cpx(['--json', 'trace', '--original', path.join(dir, 'photo.jpg'), path.join(dir, 'leak.jpg')]);
      expect(code).toBe(ExitCode.TRACE_NOT_CHECKED);
      expect(JSON.parse(stdout)).toEqual({ orderId: '126', detectionStatus: 'error', watermarkText: null, reportSupported: false });
    });
  });
});

// The SDK (libs/sdk) and the CLI (apps/cli, run as its own process) against the running stack: protect →
// trace with two recipients told apart, a report downloaded, webhooks verified, exit codes; and the served
// OpenAPI document is the committed one, every documented route served.
import { ContentProtectionClient, ContentProtectionError, verifyWebhook } from '@cp/sdk';
import { gatewayUrl, ROOT, TRY_REQUEST } from '@cp/stack';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { api, createAccount, eventually, layout, openSchema, TestAccount } from './support/e2e-stack';
import { CORPUS } from './support/orders';
import { WebhookReceiver } from './support/webhook-receiver';

const PHOTO = path.join(CORPUS, 'photos', 'rocket.jpg');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cpx` as a user would, piped (no TTY), with its own environment. */
function cpx(args: string[], env: Record<string, string>, onStdout?: (text: string) => void): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './tools/register.js', 'apps/cli/src/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      onStdout?.(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('SDK and CLI against the stack', () => {
  let gateway: DataSource;
  let orders: DataSource;
  let account: TestAccount;
  let client: ContentProtectionClient;
  let env: Record<string, string>;
  const scratch = mkdtempSync(path.join(tmpdir(), 'cp-sdk-e2e-'));
  const baseUrl = gatewayUrl(layout);

  const balance = async (accountId: string): Promise<number> =>
    (await orders.query<Array<{ balance: number }>>('SELECT balance FROM credit_balance WHERE account_id = $1', [accountId]))[0]?.balance ?? -1;

  beforeAll(async () => {
    gateway = await openSchema('gateway');
    orders = await openSchema('orders');
    account = await createAccount(gateway, 'pro', 100);
    await eventually(() => balance(account.accountId), (value) => value === 100);
    client = new ContentProtectionClient({ apiKey: account.liveKey, baseUrl, pollIntervalMs: 200 });
    env = { CP_API_KEY: account.liveKey, CP_BASE_URL: baseUrl };
  });

  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await Promise.all([gateway.destroy(), orders.destroy()]);
  });

  describe('SDK', () => {
    let traceOrderId: string;

    it('protect → trace: two recipients, each marked copy (also degraded) names its own recipient; a webhook of the order verifies', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const webhook = await client.createWebhook('sdk e2e', receiver.url());
        const stages = new Set<string>();
        const outDir = path.join(scratch, 'sdk-marked');
        const protectedFiles = await client.protect({ files: [PHOTO], recipients: ['alice', 'bob'], outDir, onProgress: (event) => stages.add(event.stage) });
        expect([...stages].sort()).toEqual(['created', 'download', 'processing', 'upload']);
        expect(protectedFiles.outputs.map((output) => output.recipient)).toEqual(['alice', 'bob']);
        for (const output of protectedFiles.outputs) {
          expect(output.path).toBe(path.join(outDir, `rocket-watermarked-${output.fileId}.jpg`));
          expect((await sharp(output.path).metadata()).width).toBe(640);
        }

        // A leaked copy is rarely the file itself: bob's copy shrunk and recompressed.
        const leaked = await sharp(protectedFiles.outputs[1].path).resize(480).jpeg({ quality: 70 }).toBuffer();
        const asBob = await client.trace({ original: PHOTO, suspect: { name: 'leaked.jpg', data: leaked } });
        const asAlice = await client.trace({ original: PHOTO, suspect: protectedFiles.outputs[0].path! });
        expect(asBob.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'bob' });
        expect(asAlice.result).toEqual({ detectionStatus: 'detected', reportSupported: true, watermarkText: 'alice' });
        traceOrderId = asBob.orderId;

        const delivery = await eventually(
          async () => receiver.received.find((request) => request.rawBody.toString('utf8').includes(`"orderId":"${protectedFiles.orderId}"`)),
          (found) => found !== undefined,
        );
        const standard = verifyWebhook(delivery!.rawBody, delivery!.headers, webhook.secret);
        expect(standard.scheme).toBe('standard-webhooks');
        expect(standard.event).toMatchObject({ eventType: 'order.watermarkEmbed.completed', data: { orderId: protectedFiles.orderId, status: 'complete' } });
        const serviceOnly = { ...delivery!.headers };
        delete serviceOnly['webhook-signature'];
        expect(verifyWebhook(delivery!.rawBody, serviceOnly, webhook.secret).scheme).toBe('x-service-signature');
        expect(() => verifyWebhook(delivery!.rawBody, delivery!.headers, `whsec_${Buffer.alloc(32, 1).toString('base64')}`)).toThrow('signature');
        await client.deleteWebhook(webhook.id);
      } finally {
        await receiver.stop();
      }
    });

    it('output streams without a folder, and a report PDF downloaded', async () => {
      const result = await client.protect({ files: [{ name: 'one.jpg', data: readFileSync(PHOTO) }], recipients: ['carol'] });
      expect(result.outputs[0].path).toBeUndefined();
      const chunks: Buffer[] = [];
      for await (const chunk of await result.outputs[0].open()) {
        chunks.push(chunk as Buffer);
      }
      expect((await sharp(Buffer.concat(chunks)).metadata()).format).toBe('jpeg');

      const report = await client.report(traceOrderId, 'ja-JP', { outFile: path.join(scratch, 'report.pdf') });
      expect(report.report).toMatchObject({ orderId: traceOrderId, locale: 'ja-JP', status: 'completed' });
      expect(report.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(readFileSync(path.join(scratch, 'report.pdf')).equals(report.pdf)).toBe(true);
    });

    it('an anti-AI order through the SDK: created, uploaded, waited for, downloaded with its opt-out metadata', async () => {
      const created = await client.createAntiAiOrder({ files: [{ fileName: 'one.jpg' }], options: { strength: 'low' } });
      expect(created.status).toBe('pending');
      await client.upload(created.files[0].uploadUrl ?? '', PHOTO);
      const done = await client.waitForOrder(created.orderId);
      expect(done.status).toBe('complete');
      const file = await fetch(await client.getDownloadUrl(created.orderId));
      const xmp = (await sharp(Buffer.from(await file.arrayBuffer())).metadata()).xmp?.toString('utf8') ?? '';
      expect(xmp).toContain('DMI-PROHIBITED');
      await expect(client.createAntiAiOrder({ files: [{ fileName: 'contract.pdf' }] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    });

    it('an AI detection order through the SDK: created, uploaded, confirmed, its evidence read', async () => {
      const created = await client.createAiDetectionOrder({ files: [{ fileName: 'one.jpg' }] });
      await client.upload(created.files[0].uploadUrl ?? '', PHOTO);
      const confirmed = await client.confirmAiDetectionOrder(created.orderId);
      expect(['pending', 'inProgress']).toContain(confirmed.status);
      const done = await client.waitForOrder(created.orderId);
      expect(done.status).toBe('complete');
      expect(done.detection?.files).toHaveLength(1);
      expect(done.detection?.probability).toBeGreaterThanOrEqual(0);
      await expect(client.confirmAiDetectionOrder('99999999999')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND', status: 404 });
    });

    it('typed errors carry the public code: a refused key, an unknown order, a download of an unknown order', async () => {
      const refused = new ContentProtectionClient({ apiKey: 'sk_live_not-a-key', baseUrl });
      await expect(refused.getOrder('1')).rejects.toMatchObject({ code: 'AUTH_NOT_AUTHENTICATED', status: 401 });
      await expect(client.getOrder('99999999999')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND', status: 404 });
      const failure = await client.getDownloadUrl('99999999999').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ContentProtectionError);
    });
  });

  describe('CLI (cpx), piped', () => {
    it('protect → trace by file names, plain lines and exit codes; trace of an unmarked copy exits 3', async () => {
      const outDir = path.join(scratch, 'cli-marked');
      const protect = await cpx(['protect', PHOTO, '--recipient', 'alice', '--recipient', 'bob', '--out', outDir], env);
      expect(protect).toMatchObject({ code: 0 });
      const lines = protect.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^order \d+ complete$/);
      const bobPath = lines.find((line) => line.startsWith('bob\t'))!.split('\t')[2];
      expect(bobPath).toMatch(/rocket-watermarked-\d+-\d+\.jpg$/);
      // Progress goes to stderr as plain lines when piped (no bar drawing).
      expect(protect.stderr).toMatch(/upload rocket\.jpg 100% of \d+ bytes/);
      expect(protect.stderr).not.toContain('\u001b[');

      const traced = await cpx(['--json', 'trace', '--original', PHOTO, bobPath], env);
      expect(traced.code).toBe(0);
      expect(JSON.parse(traced.stdout)).toMatchObject({ detectionStatus: 'detected', watermarkText: 'bob' });

      const clean = await cpx(['trace', '--original', PHOTO, PHOTO], env);
      expect(clean.code).toBe(3);
      expect(clean.stdout).toMatch(/^not_detected\torder \d+/);

      const orderId = (JSON.parse(traced.stdout) as { orderId: string }).orderId;
      const shown = await cpx(['orders', 'get', orderId], env);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('result\tdetected\tbob');

      const reportFile = path.join(scratch, 'cli-report.pdf');
      const report = await cpx(['report', orderId, '--locale', 'ko-KR', '--out', reportFile], env);
      expect(report.code).toBe(0);
      expect(readFileSync(reportFile).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    });

    it('exit codes scripts rely on: usage 2, refused key 4, refused request 5 with its code on stderr', async () => {
      expect((await cpx(['protect', PHOTO], env)).code).toBe(2);
      expect((await cpx(['orders', 'get', '1'], { CP_BASE_URL: baseUrl })).code).toBe(2);
      expect((await cpx(['--help'], {})).code).toBe(0);
      expect((await cpx(['webhooks', 'listen', '--help'], {})).stdout).toContain('--register');
      expect((await cpx(['--api-key', 'sk_live_nope', 'orders', 'get', '1'], { CP_BASE_URL: baseUrl })).code).toBe(4);
      const missing = await cpx(['--json', 'orders', 'get', '99999999999'], env);
      expect(missing.code).toBe(5);
      expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'RESOURCE_NOT_FOUND' } });
    });

    it('webhooks listen --register verifies a real delivery, prints it and cleans up', async () => {
      let printed = '';
      const listening = cpx(['--json', 'webhooks', 'listen', '--register', '--once', '--port', '0'], env, (text) => (printed = text));
      await eventually(async () => (await client.listWebhooks()).length, (count) => count === 1, 20_000);
      const order = await client.protect({ files: [PHOTO], recipients: ['dave'] });
      const run = await listening;
      expect(run.code).toBe(0);
      const line = JSON.parse(printed.trim().split('\n')[0]) as { verified: boolean; event: { eventType: string; data: { orderId: string } } };
      expect(line).toMatchObject({ verified: true, event: { eventType: 'order.watermarkEmbed.completed', data: { orderId: order.orderId } } });
      expect(await client.listWebhooks()).toEqual([]);
    });
  });

  // `npm start` printed `curl … /api/v3/orders/1` with the test key: 404 RESOURCE_NOT_FOUND on a fresh stack.
  it('the request npm start offers to try works with a fresh test key', async () => {
    const fresh = await createAccount(gateway, 'free', 0);
    const response = await fetch(`${baseUrl}${TRY_REQUEST.path}`, {
      method: TRY_REQUEST.method,
      headers: { authorization: `Bearer ${fresh.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(TRY_REQUEST.body),
    });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { status: string; files: Array<{ uploadUrl: string | null }> } };
    expect([data.status, data.files.length, data.files[0].uploadUrl?.includes('/api/v2/test-uploads/')]).toEqual(['pending', 1, true]);
  });

  describe('OpenAPI document', () => {
    it('the gateway serves the committed document (servers and the license link, which name the deployment, aside)', async () => {
      type Document = { servers: Array<{ url: string }>; info: { license: { url: string } } };
      const served = (await api<Document>('/api/docs-json')).body;
      const committed = JSON.parse(readFileSync(path.join(ROOT, 'libs/sdk/openapi.json'), 'utf8')) as Document;
      expect(served.info.license.url).toBe(`${served.servers[0].url}/api/docs`);
      const aside = (document: Document) => ({ ...document, servers: null, info: { ...document.info, license: { ...document.info.license, url: null } } });
      expect(aside(served)).toEqual(aside(committed));
    });

    it('every documented operation reaches a handler (never ROUTE_NOT_FOUND), while an undocumented one does not', async () => {
      const document = JSON.parse(readFileSync(path.join(ROOT, 'libs/sdk/openapi.json'), 'utf8')) as {
        paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; example?: string | number }> }>>;
      };
      const misses: string[] = [];
      for (const [template, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const concrete = template.replace(/\{(\w+)\}/g, (_match, name: string) =>
            String(operation.parameters?.find((parameter) => parameter.name === name)?.example ?? '1'),
          );
          const response = await api<{ code?: string }>(concrete, { key: account.testKey, method: method.toUpperCase(), body: method === 'get' || method === 'delete' ? undefined : {} });
          if (response.body.code === 'ROUTE_NOT_FOUND') {
            misses.push(`${method.toUpperCase()} ${concrete}`);
          }
        }
      }
      expect(misses).toEqual([]);
      expect((await api<{ code?: string }>('/api/v3/orders/1/undocumented', { key: account.testKey })).body.code).toBe('ROUTE_NOT_FOUND');
    });
  });
});

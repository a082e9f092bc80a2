// The test-upload sink over a real HTTP server: the token is checked before the body is read.
import { Clock, ManualClock } from '@cp/clock';
import { RecordTestUploadCommand } from '@cp/contracts';
import { RpcClient } from '@cp/messaging';
import { signUploadToken } from '@cp/storage';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { once } from 'node:events';
import { ClientRequest, IncomingMessage, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { GATEWAY_CONFIG } from '../gateway.config';
import { HttpExceptionFilter } from '../http/http-exception.filter';
import { RecordedTestUploads } from './recorded-test-uploads';
import { TestUploadsController } from './test-uploads.controller';
import { MAX_TEST_UPLOAD_BYTES } from './test-upload-body.reader';
import { deferTestUploadContinue } from './test-upload-continue.listener';
import { TestUploadTokenGuard } from './test-upload-token.guard';

const SECRET = 'test-upload-secret-of-this-spec';

class FakeRpc {
  readonly commands: RecordTestUploadCommand[] = [];

  request(_rpc: unknown, command: RecordTestUploadCommand): Promise<{ fileId: string; size: number }> {
    this.commands.push(command);
    return Promise.resolve({ fileId: '34', size: command.size });
  }
}

async function readJson(response: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) {
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

describe('TestUploadsController (real HTTP server)', () => {
  const clock = new ManualClock(new Date('2026-11-01T00:00:00.000Z'));
  const rpc = new FakeRpc();
  let app: INestApplication;
  let port: number;

  /** A PUT whose chunked body never ends: it keeps sending until the server answers. */
  function endlessUpload(token: string): { request: ClientRequest; sent: () => number; stop: () => void } {
    const upload = request({ host: '127.0.0.1', port, method: 'PUT', path: `/api/v2/test-uploads/${token}`, headers: { 'content-type': 'application/octet-stream' } });
    upload.on('error', () => undefined);
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 1);
    const timer = setInterval(() => {
      if (!upload.destroyed && upload.write(chunk)) {
        sent += chunk.length;
      }
    }, 5);
    return { request: upload, sent: () => sent, stop: () => clearInterval(timer) };
  }

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [TestUploadsController],
      providers: [
        TestUploadTokenGuard,
        RecordedTestUploads,
        { provide: RpcClient, useValue: rpc },
        { provide: Clock, useValue: clock },
        { provide: GATEWAY_CONFIG, useValue: { testUploadSecret: SECRET } },
      ],
    }).compile();
    app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
    app.useGlobalFilters(new HttpExceptionFilter());
    // As configureGatewayPipeline does: the sink sends its own 100 Continue.
    deferTestUploadContinue(app.getHttpServer() as Server);
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer() as { address(): AddressInfo }).address().port;
  });

  afterAll(() => app.close());

  beforeEach(() => {
    rpc.commands.length = 0;
  });

  // A token of its own for each test: a token whose upload was recorded is answered as a replay.
  let tokens = 0;
  const validToken = (): string => signUploadToken({ orderId: '12', fileId: '34', expiresAt: clock.nowMs() + 60_000 + (tokens += 1) }, SECRET);

  /**
   * Resolves once the server has closed the connection (at once when it already has). A listener, not
   * `once(socket, 'close')`, which rejects on an 'error' first: a server hanging up on a body still being sent resets
   * the connection (ECONNRESET or EPIPE, then 'close'), which is the closing these tests wait for.
   */
  async function closed(upload: ClientRequest): Promise<void> {
    const socket = upload.socket;
    if (socket && !socket.destroyed) {
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    }
  }

  function put(token: string, headers: Record<string, string>): { upload: ClientRequest; continued: () => boolean } {
    const upload = request({ host: '127.0.0.1', port, method: 'PUT', path: `/api/v2/test-uploads/${token}`, headers: { 'content-type': 'application/octet-stream', ...headers } });
    upload.on('error', () => undefined);
    let continued = false;
    upload.on('continue', () => {
      continued = true;
    });
    return { upload, continued: () => continued };
  }

  it('Content-Length over 256 MiB with Expect: 100-continue: 413 PAYLOAD_TOO_LARGE at once, never 100 Continue', async () => {
    const { upload, continued } = put(validToken(), { 'content-length': '314572800', expect: '100-continue' });
    upload.flushHeaders();
    try {
      const [response] = (await once(upload, 'response')) as [IncomingMessage];
      expect(response.statusCode).toBe(413);
      expect(response.headers.connection).toBe('close');
      expect(await readJson(response)).toEqual({ code: 'PAYLOAD_TOO_LARGE' });
      expect(continued()).toBe(false);
      await closed(upload);
    } finally {
      upload.destroy();
    }
    expect(rpc.commands).toEqual([]);
  });

  it('Content-Length over 256 MiB without Expect: 413 before the body is read, then the connection is closed', async () => {
    const { upload } = put(validToken(), { 'content-length': '314572800' });
    upload.write(Buffer.alloc(64 * 1024, 1));
    try {
      const [response] = (await once(upload, 'response')) as [IncomingMessage];
      expect(response.statusCode).toBe(413);
      expect(response.headers.connection).toBe('close');
      expect(await readJson(response)).toEqual({ code: 'PAYLOAD_TOO_LARGE' });
      await closed(upload);
      expect(upload.writableEnded).toBe(false);
    } finally {
      upload.destroy();
    }
    expect(rpc.commands).toEqual([]);
  });

  it('exactly 256 MiB declared with Expect: 100-continue is invited in (the limit is inclusive)', async () => {
    const { upload, continued } = put(validToken(), { 'content-length': String(MAX_TEST_UPLOAD_BYTES), expect: '100-continue' });
    upload.flushHeaders();
    try {
      await once(upload, 'continue');
      expect(continued()).toBe(true);
    } finally {
      upload.destroy();
    }
  });

  it('a small upload with Expect: 100-continue gets its 100 Continue from the sink, then 200', async () => {
    const token = validToken();
    const { upload, continued } = put(token, { 'content-length': '1000', expect: '100-continue' });
    upload.flushHeaders();
    await once(upload, 'continue');
    upload.end(Buffer.alloc(1000, 2));
    const [response] = (await once(upload, 'response')) as [IncomingMessage];
    expect(response.statusCode).toBe(200);
    expect(await readJson(response)).toEqual({ data: { fileId: '34', size: 1000 } });
    expect(continued()).toBe(true);
    expect(rpc.commands).toEqual([{ token, size: 1000 }]);
  });

  it('a bad token with Expect: 100-continue: 404, and no 100 Continue either', async () => {
    const { upload, continued } = put('not-a-token', { 'content-length': '1000', expect: '100-continue' });
    upload.flushHeaders();
    try {
      const [response] = (await once(upload, 'response')) as [IncomingMessage];
      expect(response.statusCode).toBe(404);
      expect(await readJson(response)).toEqual({ code: 'RESOURCE_NOT_FOUND' });
      expect(continued()).toBe(false);
    } finally {
      upload.destroy();
    }
  });

  it('a chunked body that crosses 256 MiB: 413 with Connection: close, then the connection is closed; nothing recorded', async () => {
    const { upload } = put(validToken(), {});
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let sent = 0;
    let answered = false;
    // Sends as fast as the server reads, until it answers.
    const pump = (): void => {
      while (!answered && !upload.destroyed) {
        sent += chunk.length;
        if (!upload.write(chunk)) {
          upload.once('drain', pump);
          return;
        }
      }
    };
    pump();
    try {
      const [response] = (await once(upload, 'response')) as [IncomingMessage];
      answered = true;
      expect(response.statusCode).toBe(413);
      expect(response.headers.connection).toBe('close');
      expect(await readJson(response)).toEqual({ code: 'PAYLOAD_TOO_LARGE' });
      expect(sent).toBeGreaterThan(MAX_TEST_UPLOAD_BYTES);
      // The client stops sending once it has the answer; the server, which sent FIN after it, then closes.
      upload.socket?.end();
      await closed(upload);
      expect(upload.writableEnded).toBe(false);
    } finally {
      answered = true;
      upload.destroy();
    }
    expect(rpc.commands).toEqual([]);
  });

  it.each([
    ['a forged signature', () => `${signUploadToken({ orderId: '12', fileId: '34', expiresAt: clock.nowMs() + 60_000 }, 'another-secret-of-16+').split('.')[0]}.AAAA`],
    ['an expired token', () => signUploadToken({ orderId: '12', fileId: '34', expiresAt: clock.nowMs() - 1 }, SECRET)],
    ['garbage', () => 'not-a-token'],
  ])('%s is refused while the body is still being sent, and the connection is closed', async (_name, token) => {
    const upload = endlessUpload(token());
    try {
      const [response] = (await once(upload.request, 'response')) as [IncomingMessage];
      expect(response.statusCode).toBe(404);
      expect(response.headers.connection).toBe('close');
      expect(await readJson(response)).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
      // The server hangs up although the body never ended: FIN after the answer, what still arrives is thrown away
      // (a lingering close, so this client reads the 404 rather than a reset), and the body is never drained.
      await closed(upload.request);
      expect(upload.request.writableEnded).toBe(false);
    } finally {
      upload.stop();
      upload.request.destroy();
    }
    expect(rpc.commands).toEqual([]);
  });

  it('a valid token: the body is read (counted) and recorded', async () => {
    const token = validToken();
    const upload = request({ host: '127.0.0.1', port, method: 'PUT', path: `/api/v2/test-uploads/${token}`, headers: { 'content-type': 'image/png' } });
    upload.end(Buffer.alloc(1000, 2));
    const [response] = (await once(upload, 'response')) as [IncomingMessage];
    expect(response.statusCode).toBe(200);
    expect(await readJson(response)).toEqual({ data: { fileId: '34', size: 1000 } });
    expect(rpc.commands).toEqual([{ token, size: 1000 }]);
  });

  it('a replay of a recorded token gets the same 200 at once: no RPC, its body not read, the connection closed', async () => {
    const token = validToken();
    const first = request({ host: '127.0.0.1', port, method: 'PUT', path: `/api/v2/test-uploads/${token}`, headers: { 'content-type': 'image/png' } });
    first.end(Buffer.alloc(1000, 2));
    const [answer] = (await once(first, 'response')) as [IncomingMessage];
    expect(await readJson(answer)).toEqual({ data: { fileId: '34', size: 1000 } });
    expect(rpc.commands).toHaveLength(1);

    // The replay's body never ends: it is answered anyway, with the first answer.
    const replay = endlessUpload(token);
    try {
      const [response] = (await once(replay.request, 'response')) as [IncomingMessage];
      expect(response.statusCode).toBe(200);
      expect(response.headers.connection).toBe('close');
      expect(await readJson(response)).toEqual({ data: { fileId: '34', size: 1000 } });
      replay.request.socket?.end();
      await closed(replay.request);
      expect(replay.request.writableEnded).toBe(false);
    } finally {
      replay.stop();
      replay.request.destroy();
    }
    expect(rpc.commands).toEqual([{ token, size: 1000 }]);
  });

  it('a replay with Expect: 100-continue is answered without inviting the body', async () => {
    const token = validToken();
    const first = request({ host: '127.0.0.1', port, method: 'PUT', path: `/api/v2/test-uploads/${token}` });
    first.end(Buffer.alloc(10, 2));
    await readJson(((await once(first, 'response')) as [IncomingMessage])[0]);
    const { upload, continued } = put(token, { 'content-length': '1000', expect: '100-continue' });
    upload.flushHeaders();
    try {
      const [response] = (await once(upload, 'response')) as [IncomingMessage];
      expect([response.statusCode, await readJson(response), continued()]).toEqual([200, { data: { fileId: '34', size: 10 } }, false]);
    } finally {
      upload.destroy();
    }
    expect(rpc.commands.filter((command) => command.token === token)).toHaveLength(1);
  });
});

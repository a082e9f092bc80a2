// `cpx webhooks listen` against hostile clients (finding L4): a body over 1 MiB is refused with 413 and the
// connection closed, a client that stalls is disconnected; a signed event within the limit is still verified.
import { createHmac } from 'node:crypto';
import { connect, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { Cli } from './cli';
import { ExitCode } from './exit-codes';
import { LISTEN_LIMITS } from './webhook-listener';

const SECRET = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtMTIzNA==';
const MIB = 1024 * 1024;

/** Everything the server sent until it closed the connection. */
function closedWith(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
}

describe('cpx webhooks listen: body cap and timeouts', () => {
  let stderrText = '';
  let stdoutText = '';
  let port: number;
  let run: Promise<ExitCode>;

  beforeAll(async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on('data', (chunk: Buffer) => (stdoutText += chunk.toString('utf8')));
    stderr.on('data', (chunk: Buffer) => (stderrText += chunk.toString('utf8')));
    // The real body cap; timeouts short enough for a test (the defaults are checked below), long enough for the other
    // tests' requests on a loaded machine: the 1 MiB chunked body was answered 17-42 ms after its first byte here, and
    // 50-137 ms with three busy processes on the test's core, when the request timeout was 400 ms (a 408 instead of
    // the 413 past it). Node checks them before it reads what came, so a process stalled that long after a write
    // would time out even a request sent whole.
    const limits = { ...LISTEN_LIMITS, headersTimeoutMs: 1000, requestTimeoutMs: 2000, checkIntervalMs: 50 };
    run = new Cli({ stdout, stderr }, { CP_WEBHOOK_SECRET: SECRET }, limits).run(['--json', 'webhooks', 'listen', '--port', '0', '--once']);
    port = await new Promise<number>((resolve) => {
      const look = (): void => {
        const found = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderrText);
        if (found) {
          resolve(Number(found[1]));
        } else {
          stderr.once('data', look);
        }
      };
      look();
    });
  });

  it('by default caps bodies at 1 MiB and gives a client 5 s for its headers and 10 s for the request', () => {
    expect(LISTEN_LIMITS).toMatchObject({ maxBodyBytes: MIB, headersTimeoutMs: 5000, requestTimeoutMs: 10_000 });
  });

  it('a declared Content-Length over 1 MiB is answered 413 at once, without reading the body, and the connection closed', async () => {
    const socket = await open(port);
    const answer = closedWith(socket);
    await write(socket, `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MIB + 1}\r\n\r\n`);
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
  });

  it('a chunked body that grows past 1 MiB is answered 413 and the connection closed', async () => {
    const socket = await open(port);
    const answer = closedWith(socket);
    await write(socket, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    // One byte over the cap, in 64 KiB chunks, and never a last chunk: only the cap can end this request.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let sent = 0; sent < MIB; sent += chunk.length) {
      await write(socket, Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    }
    await write(socket, '1\r\n \r\n');
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(stdoutText).toBe('');
  });

  it('a client that stalls in its headers, or in its body, is answered 408 and disconnected', async () => {
    const inHeaders = await open(port);
    const headersAnswer = closedWith(inHeaders);
    await write(inHeaders, 'POST / HTTP/1.1\r\nHost: x\r\n');
    const inBody = await open(port);
    const bodyAnswer = closedWith(inBody);
    await write(inBody, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"eventId"');
    expect((await headersAnswer).split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect((await bodyAnswer).split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
  });

  it('a signed event within the limit is still verified and printed (and --once ends the run)', async () => {
    const body = JSON.stringify({ eventId: 'e1', eventType: 'order.watermarkEmbed.completed', occurredAt: '2026-11-01T00:00:00.000Z', data: { orderId: '7', status: 'complete' } });
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Signature': createHmac('sha256', SECRET).update(body).digest('hex') },
      body,
    });
    expect(response.status).toBe(200);
    expect(await run).toBe(ExitCode.OK);
    expect(JSON.parse(stdoutText)).toMatchObject({ verified: true, scheme: 'x-service-signature', event: { eventId: 'e1' } });
  });
});

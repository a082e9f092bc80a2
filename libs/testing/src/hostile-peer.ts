import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { AddressInfo, Socket } from 'node:net';
import { LoopbackTlsCertificate, loopbackTlsCertificate } from './tls-fixtures';

/**
 * What a HostilePeer does with a request, chosen by the first path segment (`/trickle/photo.jpg`):
 * - `ok`: reads the request body, answers 200 with a small body (`ok`);
 * - `trickle`: 200, then one byte per `intervalMs`, never ending;
 * - `reset`: 200 announcing 1 MiB, 16 KiB of it, then a TCP reset;
 * - `endless`: 200 and a body that never ends, as fast as the reader takes it;
 * - `redirect-private`: 302 to this peer's own `ok` path on 127.0.0.1 (a private address);
 * - `redirect-metadata`: 302 to http://169.254.169.254/latest/meta-data/;
 * - `slow-after-200`: 200 headers, then nothing;
 * - `slow-reader`: reads an upload's body one small chunk per `intervalMs` and answers 200 only after all of it.
 * Every behaviour but `slow-reader` and `ok` answers at once, without waiting for the request body.
 */
export type HostileBehaviour = 'ok' | 'trickle' | 'reset' | 'endless' | 'redirect-private' | 'redirect-metadata' | 'slow-after-200' | 'slow-reader';

export interface HostilePeerOptions {
  /** Serve HTTPS: `true` with a fresh self-signed loopback certificate (see `caFile`), or with the one given. Default: plain HTTP. */
  tls?: boolean | LoopbackTlsCertificate;
  /** Pace of `trickle` and `slow-reader`. Default 1000 ms. */
  intervalMs?: number;
  /** Bytes `slow-reader` takes per interval. Default 1024. */
  readChunkBytes?: number;
}

/**
 * A misbehaving HTTP(S) server on 127.0.0.1 (random port) for tests of outbound requests: each path makes it
 * trickle, reset, stream without end, redirect to a private address, stall after 200 or read uploads slowly.
 * Start it with `HostilePeer.start()`, point the code under test at `peer.url('trickle')`, and `close()` it
 * after (open connections are cut, timers stopped). `hits` counts requests per behaviour.
 */
export class HostilePeer {
  /** Requests received, per behaviour (a test can show that a redirect target was never reached). */
  readonly hits = new Map<HostileBehaviour | 'unknown', number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server | https.Server,
    /** `http://127.0.0.1:<port>` or `https://…` */
    readonly origin: string,
    /** The CA file a client must trust to reach an HTTPS peer. */
    readonly caFile: string | undefined,
    private readonly intervalMs: number,
    private readonly readChunkBytes: number,
  ) {}

  static async start(options: HostilePeerOptions = {}): Promise<HostilePeer> {
    const certificate = options.tls === true ? loopbackTlsCertificate() : options.tls || undefined;
    // The peer needs the server's port, the server's handler needs the peer: it is set once both exist.
    const ready: { peer?: HostilePeer } = {};
    const handler = (request: IncomingMessage, response: ServerResponse): void => ready.peer?.handle(request, response);
    const server = certificate ? https.createServer({ key: certificate.key, cert: certificate.cert }, handler) : http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const peer = new HostilePeer(server, `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`, certificate?.certFile, options.intervalMs ?? 1000, options.readChunkBytes ?? 1024);
    ready.peer = peer;
    server.on('connection', (socket: Socket) => {
      peer.sockets.add(socket);
      socket.on('close', () => peer.sockets.delete(socket));
    });
    return peer;
  }

  /** The URL of a behaviour, e.g. `url('trickle', 'photo.jpg')`. */
  url(behaviour: HostileBehaviour, rest = 'file'): string {
    return `${this.origin}/${behaviour}/${rest}`;
  }

  /** Connections open right now (0 once every client has let go). */
  get openConnections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) {
      clearInterval(timer);
    }
    this.timers.clear();
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private every(ms: number, tick: () => void, socket: Socket): void {
    const timer = setInterval(tick, ms);
    this.timers.add(timer);
    socket.once('close', () => {
      clearInterval(timer);
      this.timers.delete(timer);
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const behaviour = (request.url ?? '').split('/')[1] as HostileBehaviour;
    const known: HostileBehaviour[] = ['ok', 'trickle', 'reset', 'endless', 'redirect-private', 'redirect-metadata', 'slow-after-200', 'slow-reader'];
    const name = known.includes(behaviour) ? behaviour : 'unknown';
    this.hits.set(name, (this.hits.get(name) ?? 0) + 1);
    const socket = request.socket;
    // A client cutting the exchange is expected here; it must not end the test process.
    socket.on('error', () => undefined);
    response.on('error', () => undefined);
    if (behaviour !== 'slow-reader') {
      request.resume();
    }
    switch (name) {
      case 'ok':
        request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
        return;
      case 'trickle':
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        this.every(this.intervalMs, () => response.write('x'), socket);
        return;
      case 'reset':
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(1024 * 1024) });
        // Over TLS the reset goes on the TCP socket under it (TLS sockets have no TCP handle of their own).
        response.write(Buffer.alloc(16 * 1024, 1), () => setTimeout(() => ((socket as Socket & { _parent?: Socket })._parent ?? socket).resetAndDestroy(), 50));
        return;
      case 'endless': {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 2);
        const pump = (): void => {
          while (!response.destroyed && response.write(chunk)) {
            // Writes until the reader pushes back, then waits for it.
          }
          if (!response.destroyed) {
            response.once('drain', pump);
          }
        };
        pump();
        return;
      }
      case 'redirect-private':
        response.writeHead(302, { location: `${this.origin}/ok/redirected` }).end();
        return;
      case 'redirect-metadata':
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      case 'slow-after-200':
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.flushHeaders();
        return;
      case 'slow-reader': {
        let received = 0;
        const expected = Number(request.headers['content-length'] ?? 0);
        request.pause();
        this.every(
          this.intervalMs,
          () => {
            // A last piece smaller than the chunk is read as it is.
            const chunk = request.read(Math.min(this.readChunkBytes, request.readableLength || this.readChunkBytes)) as Buffer | null;
            received += chunk?.length ?? 0;
            if (received >= expected && !response.headersSent) {
              response.writeHead(200).end('ok');
            }
          },
          socket,
        );
        return;
      }
      default:
        response.writeHead(404).end();
    }
  }
}

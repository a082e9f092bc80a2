import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import http, { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import net, { Socket } from 'node:net';
import { Transform, TransformCallback } from 'node:stream';
import tls from 'node:tls';
import { AddressPolicy, AddressPolicyOptions } from './address-policy';
import { Deadline } from './deadline';
import { asEgressError, EgressError, EgressFailure } from './egress-error';

export type EgressScheme = 'https:' | 'http:';

export interface EgressClientOptions extends AddressPolicyOptions {
  /** Schemes this caller may use. Default: HTTPS only. */
  schemes?: readonly EgressScheme[];
  /** Extra CA certificate(s), PEM, trusted besides the system's (a private PKI, a local test server). */
  extraCa?: string | Buffer;
  /** User-Agent header of every request. */
  userAgent: string;
  /**
   * The one origin this client reaches, from configuration (a relay to the operator's own storage): any other URL
   * is BAD_URL, however the path was built, and a redirect cannot leave it. Its host may resolve to private
   * addresses (the operator's network is where it lives); metadata and unspecified addresses stay refused.
   */
  origin?: string;
}

/** A GET whose body is streamed to the caller (a source file into storage). */
export interface EgressGetRequest {
  url: string;
  headers?: Record<string, string>;
  /** Wall-clock budget of connect, request, answer headers and the whole body. */
  deadlineMs: number;
  /** The body is cut (TOO_LARGE) past this many bytes; a larger declared Content-Length is refused before reading. */
  maxResponseBytes: number;
  /** Redirects followed, each hop's URL and address checked like the first. Default 0: a redirect is BAD_STATUS. */
  maxRedirects?: number;
  /** The answer's status line must have come within this (DEADLINE otherwise); the whole exchange keeps `deadlineMs`. */
  answerWithinMs?: number;
  /** The caller giving up (a relay's client gone): the request, or the body, ends at once with ABORTED. */
  signal?: AbortSignal;
}

export interface EgressStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The URL that answered (the request's, unless a permitted redirect was followed). */
  url: string;
  /**
   * The answer's body. It fails with an EgressError (TOO_LARGE, DEADLINE, NETWORK) when the cap is passed, the
   * deadline passes or the connection breaks; destroying it ends the exchange.
   */
  body: EgressBody;
}

/** A POST or PUT of a body in memory, answered by a status (and, for a failure, the first bytes of its body). */
export interface EgressSendRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers?: Record<string, string>;
  body: Buffer;
  /** Wall-clock budget of connect, sending the body, the answer's headers and any error body kept. */
  deadlineMs: number;
  /** A larger body is refused (TOO_LARGE) before connecting. */
  maxRequestBytes: number;
  /**
   * First bytes kept of a non-2xx answer's body (an error message to read). Default 0. A 2xx answer's body is
   * never read: the status is the answer, so a peer streaming a success body cannot hold the caller.
   */
  keepErrorBodyBytes?: number;
}

export interface EgressAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first `keepErrorBodyBytes` of a non-2xx answer's body; empty otherwise. */
  body: Buffer;
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** A streamed answer's body: counts the bytes through it and fails with TOO_LARGE past `maxBytes`. */
export class EgressBody extends Transform {
  private seen = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) {
      callback(new EgressError(EgressFailure.TOO_LARGE, `body larger than ${this.maxBytes} bytes`));
      return;
    }
    callback(null, chunk);
  }

  /** Bytes passed through so far. */
  get bytes(): number {
    return this.seen;
  }
}

/**
 * The one way out of the platform to a destination that comes from input (originalFileUrl, webhook URLs,
 * zero-copy targets): the URL is parsed once and only that origin is connected to; the scheme must be one the
 * caller allows; every address is checked (a literal before connecting, each address a name resolves to, and
 * the connected socket's peer) against the address policy; redirects are failures unless the caller opts in
 * (each hop checked again); one deadline covers the whole exchange and byte caps bound both bodies. Failures
 * are EgressErrors whose reason callers map to their public codes.
 */
export class EgressClient {
  private readonly policy: AddressPolicy;
  private readonly schemes: readonly EgressScheme[];
  private readonly ca: string[] | undefined;
  private readonly userAgent: string;
  private readonly origin: string | undefined;

  constructor(options: EgressClientOptions) {
    this.origin = options.origin === undefined ? undefined : new URL(options.origin).origin;
    this.policy = new AddressPolicy(this.origin === undefined ? options : { ...options, allowPrivate: true });
    this.schemes = options.schemes ?? ['https:'];
    // Added to the system roots, not instead of them: a caller with a private CA still reaches public hosts.
    this.ca = options.extraCa ? [...tls.rootCertificates, options.extraCa.toString()] : undefined;
    this.userAgent = options.userAgent;
  }

  /**
   * The URL if this client may request it: absolute, an allowed scheme, no credentials, a host, and not a
   * refused literal address. Throws BAD_URL or BLOCKED_ADDRESS.
   */
  parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new EgressError(EgressFailure.BAD_URL, 'not an absolute URL');
    }
    if (!(this.schemes as readonly string[]).includes(url.protocol)) {
      throw new EgressError(EgressFailure.BAD_URL, `only ${this.schemes.map((scheme) => scheme.replace(':', '')).join(' and ')} URLs are allowed`);
    }
    if (url.username || url.password) {
      throw new EgressError(EgressFailure.BAD_URL, 'credentials in the URL are not allowed');
    }
    if (this.origin !== undefined && url.origin !== this.origin) {
      throw new EgressError(EgressFailure.BAD_URL, 'outside the one origin this client reaches');
    }
    const host = hostOf(url);
    if (!host) {
      throw new EgressError(EgressFailure.BAD_URL, 'no host');
    }
    if (net.isIP(host) !== 0) {
      const refusal = this.policy.refusalOf(host);
      if (refusal) {
        throw new EgressError(EgressFailure.BLOCKED_ADDRESS, refusal);
      }
    }
    return url;
  }

  /** GETs `url` and streams a 2xx answer's body (any other status is BAD_STATUS with that status). */
  async stream(request: EgressGetRequest): Promise<EgressStream> {
    const deadline = new Deadline(request.deadlineMs);
    const abort = (): void => deadline.cancel(new EgressError(EgressFailure.ABORTED, 'the caller gave up'));
    if (request.signal?.aborted) {
      abort();
    }
    request.signal?.addEventListener('abort', abort, { once: true });
    try {
      let url = this.parse(request.url);
      for (let hop = 0; ; hop++) {
        const response = await this.open(url, 'GET', request.headers ?? {}, undefined, deadline, request.answerWithinMs);
        const status = response.statusCode ?? 0;
        if (isRedirect(status)) {
          response.destroy();
          const location = response.headers.location;
          if (hop >= (request.maxRedirects ?? 0) || !location) {
            throw new EgressError(EgressFailure.BAD_STATUS, `answered ${status} (redirects are not followed)`, status);
          }
          let next: string;
          try {
            next = new URL(location, url).toString();
          } catch {
            throw new EgressError(EgressFailure.BAD_URL, `answered ${status} with an unusable Location`, status);
          }
          url = this.parse(next);
          continue;
        }
        if (status < 200 || status >= 300) {
          response.destroy();
          throw new EgressError(EgressFailure.BAD_STATUS, `answered ${status}`, status);
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > request.maxResponseBytes) {
          response.destroy();
          throw new EgressError(EgressFailure.TOO_LARGE, `declares ${declared} bytes, more than ${request.maxResponseBytes}`);
        }
        const body = this.capped(response, request.maxResponseBytes, deadline);
        body.once('close', () => request.signal?.removeEventListener('abort', abort));
        return { status, headers: response.headers, url: url.toString(), body };
      }
    } catch (error) {
      deadline.clear();
      request.signal?.removeEventListener('abort', abort);
      throw asEgressError(error);
    }
  }

  /** Sends a body with POST or PUT and returns the answer's status (a redirect is BAD_STATUS). */
  async send(request: EgressSendRequest): Promise<EgressAnswer> {
    const url = this.parse(request.url);
    if (request.body.length > request.maxRequestBytes) {
      throw new EgressError(EgressFailure.TOO_LARGE, `request body of ${request.body.length} bytes is larger than ${request.maxRequestBytes}`);
    }
    const deadline = new Deadline(request.deadlineMs);
    try {
      const headers = { ...request.headers, 'content-length': String(request.body.length) };
      const response = await this.open(url, request.method, headers, request.body, deadline);
      const status = response.statusCode ?? 0;
      if (isRedirect(status)) {
        response.destroy();
        throw new EgressError(EgressFailure.BAD_STATUS, `answered ${status} (redirects are not followed)`, status);
      }
      const keep = request.keepErrorBodyBytes ?? 0;
      if ((status >= 200 && status < 300) || keep <= 0) {
        response.destroy();
        return { status, headers: response.headers, body: Buffer.alloc(0) };
      }
      return { status, headers: response.headers, body: await firstBytes(response, keep, deadline) };
    } catch (error) {
      throw asEgressError(error);
    } finally {
      deadline.clear();
    }
  }

  /** Sends the request and resolves with the answer's headers; the deadline destroys the request while it waits. */
  private open(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, deadline: Deadline, answerWithinMs?: number): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const answerDeadline = answerWithinMs === undefined ? undefined : new Deadline(answerWithinMs);
      const outgoing = (url.protocol === 'https:' ? https : http).request({
        protocol: url.protocol,
        hostname: hostOf(url),
        port: portOf(url),
        path: `${url.pathname}${url.search}`,
        method,
        headers: { ...headers, 'user-agent': this.userAgent },
        // No agent: one guarded socket per request, never pooled or shared with another destination.
        createConnection: () => this.connect(url),
      });
      const stopWhole = deadline.onExpiry((error) => outgoing.destroy(error));
      const stopAnswer = answerDeadline?.onExpiry((error) => outgoing.destroy(error));
      const stop = (): void => {
        stopWhole();
        stopAnswer?.();
        answerDeadline?.clear();
      };
      outgoing.on('response', (response) => {
        stop();
        // Errors after this point are handled by whoever reads the response; this keeps a late one from
        // becoming an uncaught 'error' event.
        response.on('error', () => undefined);
        resolve(response);
      });
      outgoing.on('error', (error) => {
        stop();
        reject(asEgressError(error));
      });
      outgoing.end(body);
    });
  }

  /** A socket to exactly the URL's host and port, checked on every resolved address and on its connected peer. */
  private connect(url: URL): Socket {
    const host = hostOf(url);
    const port = portOf(url);
    const socket =
      url.protocol === 'https:'
        ? tls.connect({ host, port, lookup: this.lookup, ALPNProtocols: ['http/1.1'], ...(net.isIP(host) === 0 ? { servername: host } : {}), ...(this.ca ? { ca: this.ca } : {}) })
        : net.connect({ host, port, lookup: this.lookup });
    // The address actually connected to, whatever resolved it: the last word before a byte of HTTP is sent.
    socket.once('connect', () => {
      const refusal = this.policy.refusalOf(socket.remoteAddress ?? '');
      if (refusal) {
        socket.destroy(new EgressError(EgressFailure.BLOCKED_ADDRESS, `connected to ${refusal}`));
      }
    });
    return socket;
  }

  /** dns.lookup that refuses a name when any address it resolves to is refused (no mixing public and private). */
  private readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      for (const { address } of addresses) {
        const refusal = this.policy.refusalOf(address);
        if (refusal) {
          callback(new EgressError(EgressFailure.BLOCKED_ADDRESS, `${hostname} resolves to ${refusal}`), []);
          return;
        }
      }
      if (addresses.length === 0) {
        callback(new EgressError(EgressFailure.NETWORK, `${hostname} has no address`), []);
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  };

  /** The body behind a byte cap, destroyed with DEADLINE when the deadline passes; errors are EgressErrors. */
  private capped(response: IncomingMessage, maxBytes: number, deadline: Deadline): EgressBody {
    const body = new EgressBody(maxBytes);
    const stop = deadline.onExpiry((error) => body.destroy(error));
    response.on('error', (error) => body.destroy(asEgressError(error)));
    // The connection ends with the body, however it ends (consumed, cut, or dropped by the reader).
    body.on('close', () => {
      stop();
      deadline.clear();
      response.destroy();
    });
    body.on('error', () => response.destroy());
    response.pipe(body);
    return body;
  }
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Up to `maxBytes` of a body (the connection is closed then), within the deadline. */
function firstBytes(response: IncomingMessage, maxBytes: number, deadline: Deadline): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = deadline.onExpiry((error) => response.destroy(error));
    const done = (): void => {
      stop();
      response.destroy();
      resolve(Buffer.concat(chunks).subarray(0, maxBytes));
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) {
        done();
      }
    });
    response.on('end', done);
    response.on('error', (error) => {
      stop();
      reject(asEgressError(error));
    });
  });
}

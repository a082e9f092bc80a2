// The URL fetcher against a real HTTPS server on loopback: HTTPS only, no redirects, the size counted
// while streaming, and private addresses refused unless a test switch allows them.
import { ObjectStorage } from '@cp/storage';
import { loopbackTlsCertificate, rejectionOf } from '@cp/testing';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { UploadsConfig } from '../uploads.config';
import { SourceFetcher, SourceFetchError } from './source-fetcher';

/** Storage stand-in that drains what it is given: the fetcher's behaviour is the HTTP side. */
class DrainingStorage {
  stored = 0;

  async put(_bucket: string, _key: string, body: Buffer | Readable): Promise<void> {
    for await (const chunk of body as Readable) {
      this.stored += (chunk as Buffer).length;
    }
  }
}

describe('SourceFetcher', () => {
  let server: Server;
  let base: string;
  let caFile: string;

  beforeAll(async () => {
    const tls = loopbackTlsCertificate();
    caFile = tls.certFile;
    server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
      switch (request.url) {
        case '/photo.jpg':
          response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(64 * 1024, 7));
          return;
        case '/endless.jpg': {
          response.writeHead(200, { 'content-type': 'image/jpeg' });
          let sent = 0;
          const pump = (): void => {
            while (sent < 4 * 1024 * 1024 && response.write(Buffer.alloc(64 * 1024))) {
              sent += 64 * 1024;
            }
            if (sent < 4 * 1024 * 1024) {
              response.once('drain', pump);
            } else {
              response.end();
            }
          };
          pump();
          return;
        }
        case '/declared-large.jpg':
          response.writeHead(200, { 'content-length': String(50 * 1024 * 1024) }).end();
          return;
        case '/moved.jpg':
          response.writeHead(302, { location: '/photo.jpg' }).end();
          return;
        default:
          response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  function fetcher(allowPrivate: boolean): { fetcher: SourceFetcher; storage: DrainingStorage } {
    const storage = new DrainingStorage();
    const config = { sourceFetch: { maxBytes: 1024 * 1024, deadlineMs: 5000, allowPrivate, allowedIps: [] as string[], extraCaFile: caFile } } as UploadsConfig;
    return { fetcher: new SourceFetcher(config, storage as unknown as ObjectStorage), storage };
  }

  it('refuses a loopback address by default, on the address actually connected to', async () => {
    const error = await rejectionOf(fetcher(false).fetcher.fetchInto(`${base}/photo.jpg`, 'b', 'k'), SourceFetchError);
    expect(error.permanent).toBe(true);
  });

  it('refuses a DNS name that resolves to loopback, on the resolved address (the name alone looks harmless)', async () => {
    const error = await rejectionOf(fetcher(false).fetcher.fetchInto(`${base.replace('127.0.0.1', 'localhost')}/photo.jpg`, 'b', 'k'), SourceFetchError);
    expect(error.permanent).toBe(true);
    expect(error.message).toMatch(/not allowed|private/i);
  });

  it('stores a file and returns its size when the address is allowed', async () => {
    const { fetcher: allowed, storage } = fetcher(true);
    expect(await allowed.fetchInto(`${base}/photo.jpg`, 'b', 'k')).toBe(64 * 1024);
    expect(storage.stored).toBe(64 * 1024);
  });

  it('stops a body that grows past the limit while streaming', async () => {
    const error = await rejectionOf(fetcher(true).fetcher.fetchInto(`${base}/endless.jpg`, 'b', 'k'), SourceFetchError);
    expect(error.permanent).toBe(true);
    expect(error.message).toMatch(/larger than/);
  });

  it('refuses a declared length over the limit without reading it', async () => {
    const error = await rejectionOf(fetcher(true).fetcher.fetchInto(`${base}/declared-large.jpg`, 'b', 'k'), SourceFetchError);
    expect(error.message).toMatch(/declares/);
  });

  it('does not follow redirects, and a 404 is final', async () => {
    const redirect = await rejectionOf(fetcher(true).fetcher.fetchInto(`${base}/moved.jpg`, 'b', 'k'), SourceFetchError);
    expect(redirect.message).toMatch(/redirects are not followed/);
    expect(redirect.permanent).toBe(true);
    const missing = await rejectionOf(fetcher(true).fetcher.fetchInto(`${base}/missing.jpg`, 'b', 'k'), SourceFetchError);
    expect(missing.permanent).toBe(true);
  });

  it('refuses plain HTTP', async () => {
    const error = await rejectionOf(fetcher(true).fetcher.fetchInto(base.replace('https:', 'http:'), 'b', 'k'), SourceFetchError);
    expect(error.message).toMatch(/only https/);
  });
});

// Download names against a real S3 server: the Content-Disposition of a presigned GET carries any file name a
// client may give (Korean, quotes, bidi controls) without breaking the header or the request.
import { testStorageConfig } from '@cp/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { ObjectStorage, safeDownloadName } from './object-storage';

describe('ObjectStorage download names (real S3 server)', () => {
  let server: S3rver;
  let storage: ObjectStorage;

  beforeAll(async () => {
    server = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    storage = new ObjectStorage({ ...testStorageConfig(endpoint), publicEndpoint: endpoint });
    await storage.ensureBuckets();
    await storage.put(storage.buckets.outputs, 'k/result.jpg', Buffer.from('bytes'));
  });

  afterAll(() => server.close());

  async function disposition(name: string): Promise<{ status: number; header: string | null }> {
    const response = await fetch(await storage.presignGet(storage.buckets.outputs, 'k/result.jpg', 60, name));
    await response.arrayBuffer();
    return { status: response.status, header: response.headers.get('content-disposition') };
  }

  it('a Korean name: an ASCII fallback and the UTF-8 name (RFC 6266)', async () => {
    expect(await disposition('사진-watermarked-1-1.jpg')).toEqual({
      status: 200,
      header: `attachment; filename="??-watermarked-1-1.jpg"; filename*=UTF-8''%EC%82%AC%EC%A7%84-watermarked-1-1.jpg`,
    });
  });

  it('quotes stay inside the quoted name; an RTL override cannot disguise the extension', async () => {
    const { status, header } = await disposition('a"b\u202egnp.exe.jpg');
    expect(status).toBe(200);
    expect(header).toBe(`attachment; filename="a\\"b_gnp.exe.jpg"`);
  });

  it('names are plain names: no folder part, no bidi controls, never empty or a dot segment', () => {
    expect(['../../etc/passwd', 'a\\b.png', 'x/..', '..', '', 'r\u202egnp.exe', 'ok.png'].map(safeDownloadName)).toEqual(['passwd', 'b.png', '_', '_', '_', 'r_gnp.exe', 'ok.png']);
  });

  it('a plain name is left as it is', async () => {
    expect(await disposition('plain.jpg')).toEqual({ status: 200, header: 'attachment; filename="plain.jpg"' });
  });
});

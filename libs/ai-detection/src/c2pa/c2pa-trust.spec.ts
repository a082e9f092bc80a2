import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadC2paTrust, TRUST_SNAPSHOT_DIR } from './c2pa-trust';

interface Sources {
  snapshotDate: string;
  files: Record<string, { repository: string; commit: string; path: string; sha256: string }>;
}

describe('C2PA trust lists', () => {
  it('ships dated snapshots whose bytes match the SHA-256 and source written beside them', async () => {
    const sources = JSON.parse(await readFile(join(TRUST_SNAPSHOT_DIR, 'SOURCES.json'), 'utf8')) as Sources;
    expect(sources.snapshotDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(sources.files).sort()).toEqual(['c2pa-trust-list.pem', 'c2pa-tsa-trust-list.pem', 'interim-allowed.pem', 'interim-anchors.pem', 'interim-store.cfg']);
    for (const [file, source] of Object.entries(sources.files)) {
      expect(createHash('sha256').update(await readFile(join(TRUST_SNAPSHOT_DIR, file))).digest('hex')).toBe(source.sha256);
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(source.repository).toMatch(/^[\w-]+\/[\w-]+$/);
    }
  });

  it('loads the C2PA and TSA lists for validation and the interim list apart, with trust checking on and no fetching', () => {
    const trust = loadC2paTrust();
    const official = JSON.parse(trust.official) as { verify: Record<string, boolean>; trust: { trust_anchors: string; allowed_list?: string } };
    expect(official.verify).toMatchObject({ verify_trust: true, ocsp_fetch: false, remote_manifest_fetch: false });
    expect(official.trust.allowed_list).toBeUndefined();
    expect(trust.sources.map((source) => source.certificates).every((count) => count > 0)).toBe(true);
    expect(official.trust.trust_anchors.split('BEGIN CERTIFICATE').length - 1).toBe(trust.sources[0].certificates + trust.sources[1].certificates);
    expect((JSON.parse(trust.interim!) as typeof official).trust.allowed_list).toContain('BEGIN CERTIFICATE');
    expect(loadC2paTrust({ interim: false }).interim).toBeNull();
  });

  it('is replaceable by configuration, and refuses a list without a certificate instead of trusting nothing silently', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trust-spec-'));
    try {
      const snapshot = await readFile(join(TRUST_SNAPSHOT_DIR, 'c2pa-tsa-trust-list.pem'), 'utf8');
      const one = snapshot.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0];
      await writeFile(join(dir, 'mine.pem'), one);
      await writeFile(join(dir, 'empty.pem'), '# nothing here\n');
      expect(loadC2paTrust({ trustListPath: join(dir, 'mine.pem'), interim: false }).sources[0]).toMatchObject({ file: join(dir, 'mine.pem'), certificates: 1 });
      expect(() => loadC2paTrust({ trustListPath: join(dir, 'empty.pem') })).toThrow(/holds no PEM certificate/);
      expect(() => loadC2paTrust({ tsaTrustListPath: join(dir, 'missing.pem') })).toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

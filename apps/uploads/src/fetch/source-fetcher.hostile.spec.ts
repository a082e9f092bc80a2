// The URL fetcher against a hostile source (HTTPS on loopback) and a real S3 server: each misbehaviour ends
// within the fetch deadline with a SourceFetchError (the consumer fails the file with WATERMARK_SOURCE_URL_FAILED
// when it is permanent, retries it otherwise), the storage upload settles, nothing is stored, and the next fetch
// behind it succeeds.
import { EgressFailure } from '@cp/egress';
import { ObjectStorage } from '@cp/storage';
import { HostileBehaviour, HostilePeer, rejectionOf, startTestS3Server, TestS3Server, testStorageConfig } from '@cp/testing';
import { UploadsConfig } from '../uploads.config';
import { SourceFetcher, SourceFetchError } from './source-fetcher';

describe('SourceFetcher against a hostile source (real S3)', () => {
  let peer: HostilePeer;
  let s3: TestS3Server;
  let storage: ObjectStorage;
  let fetcher: SourceFetcher;
  let bucket: string;

  beforeAll(async () => {
    peer = await HostilePeer.start({ tls: true, intervalMs: 200 });
    s3 = await startTestS3Server();
    storage = new ObjectStorage(testStorageConfig(s3.endpoint));
    await storage.ensureBuckets();
    bucket = storage.buckets.inputs;
    // The deadline the trickling peers must reach, and that every other fetch must stay within (a TLS handshake, 2 MiB
    // of an endless body, a store): those took up to 572 ms with the test pinned to a core shared with three busy
    // processes (256 ms alone); 5 s rather than 3 keeps them far from it on a loaded machine.
    const config = { sourceFetch: { maxBytes: 2 * 1024 * 1024, deadlineMs: 5000, allowPrivate: false, allowedIps: ['127.0.0.1'], extraCaFile: peer.caFile } } as UploadsConfig;
    fetcher = new SourceFetcher(config, storage);
  });

  afterAll(async () => {
    await peer.close();
    await s3.close();
  });

  it.each<[HostileBehaviour, EgressFailure, boolean]>([
    ['trickle', EgressFailure.DEADLINE, true],
    ['slow-after-200', EgressFailure.DEADLINE, true],
    ['endless', EgressFailure.TOO_LARGE, true],
    ['reset', EgressFailure.NETWORK, false],
    ['redirect-private', EgressFailure.BAD_STATUS, true],
    ['redirect-metadata', EgressFailure.BAD_STATUS, true],
  ])('%s: fails with %s (permanent: %s), stores nothing, and the next fetch succeeds', async (behaviour, reason, permanent) => {
    const error = await rejectionOf(fetcher.fetchInto(peer.url(behaviour, 'photo.jpg'), bucket, `hostile/${behaviour}.jpg`), SourceFetchError);
    expect(error).toMatchObject({ reason, permanent });
    expect(await storage.stat(bucket, `hostile/${behaviour}.jpg`)).toBeNull();
    expect(await fetcher.fetchInto(peer.url('ok', 'photo.jpg'), bucket, `after/${behaviour}.jpg`)).toBe(2);
    expect((await storage.stat(bucket, `after/${behaviour}.jpg`))?.size).toBe(2);
  });

  it('a redirect is never followed to its private target', async () => {
    const before = peer.hits.get('ok') ?? 0;
    await rejectionOf(fetcher.fetchInto(peer.url('redirect-private'), bucket, 'hostile/redirect.jpg'), SourceFetchError);
    expect(peer.hits.get('ok') ?? 0).toBe(before);
  });
});

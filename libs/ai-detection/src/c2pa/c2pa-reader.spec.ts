import { ContentCredentialsSigner, generateDevelopmentCredentials, loadSigningCredentials } from '@cp/anti-ai';
import { WORKER_CPU_SHARE, WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { childPidsRunning, pauseChildStartedBy } from '@cp/testing';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { withContentCredentials } from '../../testing';
import { c2paReaderLimits, closeC2paReader, configureC2paReader, DEFAULT_C2PA_READER_LIMITS } from './c2pa-reader';
import { readC2pa } from './c2pa.signal';

const AI = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
const photo = (): Promise<Buffer> => sharp({ create: { width: 64, height: 48, channels: 3, background: '#5a7d9a' } }).png().toBuffer();

afterEach(() => {
  configureC2paReader({ ...DEFAULT_C2PA_READER_LIMITS, cpuShare: WORKER_CPU_SHARE });
});

afterAll(async () => {
  await closeC2paReader();
});

describe('C2PA reader process', () => {
  it('a read past its CPU budget gives "could not be read" evidence, not a failure; the next read works', async () => {
    const signed = await withContentCredentials(await photo(), 'trainedAlgorithmicMedia');
    // 60 ms of CPU for a minute's deadline: a new reader uses more only to start (Node, then compiling c2pa-rs)
    await closeC2paReader();
    configureC2paReader({ deadlineMs: 60_000, cpuShare: 0.001 });
    const [late] = (await readC2pa(signed, 'image/png')).evidence;
    expect(late).toMatchObject({ finding: 'c2pa.unreadable', weight: 0, details: { error: 'reading the manifest took longer than allowed' } });
    configureC2paReader({ cpuShare: WORKER_CPU_SHARE });
    const [read] = (await readC2pa(signed, 'image/png')).evidence;
    expect(read).toMatchObject({ finding: 'c2pa.ai' });
  });

  it('a read that reaches its deadline under its CPU budget (the reader paused) is the machine\'s: thrown on to retry the job, not "could not be read"', async () => {
    const signed = await withContentCredentials(await photo(), 'trainedAlgorithmicMedia');
    // a new reader (closing stops the idle one) started by a first read, then paused (SIGSTOP) while idle, before the
    // read it is given: it uses no CPU, however long it waits and however loaded the machine (a new deadline keeps it)
    await closeC2paReader();
    const pid = await pauseChildStartedBy('/c2pa-worker.mjs', async () => expect((await readC2pa(signed, 'image/png')).evidence[0]).toMatchObject({ finding: 'c2pa.ai' }));
    configureC2paReader({ deadlineMs: 3000 });
    const error = await readC2pa(signed, 'image/png').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkerFailure);
    expect(error).toMatchObject({ code: WorkerFailureCode.STARVED });
    // the paused reader was replaced: the next read works
    configureC2paReader({ deadlineMs: DEFAULT_C2PA_READER_LIMITS.deadlineMs });
    expect((await readC2pa(signed, 'image/png')).evidence[0]).toMatchObject({ finding: 'c2pa.ai' });
    expect(childPidsRunning('/c2pa-worker.mjs')).not.toContain(pid);
  });

  it('a manifest that runs the reader out of memory gives "could not be read" evidence; the next read works', async () => {
    const signer = new ContentCredentialsSigner(loadSigningCredentials(await generateDevelopmentCredentials('reader memory test')));
    // a 12 MB action description: the reader's JSON of it alone is larger than an 8 MiB heap, whatever the collector's
    // timing (4 MB fitted now and then), while an ordinary manifest validated against the trust lists fits
    const hostile = await signer.sign(await photo(), 'png', {
      title: 'image.png',
      origin: 'created',
      actions: [{ action: 'c2pa.created', digitalSourceType: AI, description: 'x'.repeat(12_000_000) }],
    });
    configureC2paReader({ maxOldGenerationSizeMb: 8 });
    expect(c2paReaderLimits().maxOldGenerationSizeMb).toBe(8);
    // the whole resident memory is watched too: the heap plus what WebAssembly may hold beyond it
    expect(c2paReaderLimits().maxResidentMb).toBe(8 + 512);
    const [evidence] = (await readC2pa(hostile, 'image/png')).evidence;
    expect(evidence).toMatchObject({ finding: 'c2pa.unreadable', weight: 0, details: { error: 'reading the manifest needed more memory than allowed' } });
    // the same small heap still reads an ordinary manifest: the hostile file, not the limit, was the problem
    const [ordinary] = (await readC2pa(await withContentCredentials(await photo(), 'trainedAlgorithmicMedia'), 'image/png')).evidence;
    expect(ordinary).toMatchObject({ finding: 'c2pa.ai' });
  });

  it('lists 20 actions of a manifest and counts the others, never dropping them silently', async () => {
    const signer = new ContentCredentialsSigner(loadSigningCredentials(await generateDevelopmentCredentials('many actions')));
    const actions = [{ action: 'c2pa.created', digitalSourceType: AI }, ...Array.from({ length: 24 }, () => ({ action: 'c2pa.color_adjustments' }))];
    const signed = await signer.sign(await photo(), 'png', { title: 'image.png', origin: 'created', actions });
    const [evidence] = (await readC2pa(signed, 'image/png')).evidence;
    expect(evidence.provenance?.[0]).toMatchObject({ depth: 0, omittedActions: 5 });
    expect(evidence.provenance?.[0].actions).toHaveLength(20);
    expect(evidence.details).not.toHaveProperty('omittedManifests');
  });

  it('never fetches a remote manifest the file names (XMP dcterms:provenance), and says nothing of such a place', async () => {
    const seen: string[] = [];
    const server: Server = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.writeHead(404).end('remote status text');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/remote-manifest.c2pa`;
      const xmp =
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
        `<rdf:Description rdf:about="" xmlns:dcterms="http://purl.org/dc/terms/" dcterms:provenance="${url}"/>` +
        '</rdf:RDF></x:xmpmeta>';
      const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#777' } }).jpeg().withXmp(xmp).toBuffer();
      expect(jpeg.toString('latin1')).toContain(url);
      const { evidence } = await readC2pa(jpeg, 'image/jpeg');
      expect(seen).toEqual([]);
      expect(evidence).toMatchObject([{ finding: 'c2pa.remoteManifest', weight: 0, details: {} }]);
      expect(JSON.stringify(evidence)).not.toContain(String(port));
      expect(JSON.stringify(evidence)).not.toContain('404');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

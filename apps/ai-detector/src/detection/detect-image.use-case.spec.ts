// The detection job handler against real PostgreSQL (schema aidetect's migrations) and a real S3 server.
import { createHash } from 'node:crypto';
import { encodeSdMark, syntheticPhoto, withContentCredentials } from '@cp/ai-detection/testing';
import { closeC2paReader, configureC2paReader, DEFAULT_C2PA_READER_LIMITS, readC2pa, SD_MARK_MESSAGES } from '@cp/ai-detection';
import { WorkerFailure, WorkerFailureCode } from '@cp/bounded-worker';
import { ManualClock } from '@cp/clock';
import { AiDetectionCompletedEvent, AiDetectionJob } from '@cp/contracts';
import { openServiceDatabase, TransactionRepository } from '@cp/database';
import { HandlerContext, MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { exiftoolChildPids, pauseChildStartedBy, testInfra, testStorageConfig, uniqueName, withPngChunk } from '@cp/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { AiDetectorConfig } from '../ai-detector.config';
import { AIDETECT_ENTITIES } from '../database/entities';
import { AIDETECT_MIGRATIONS } from '../database/migrations';
import { AiDetectorProvider } from './ai-detector.provider';
import { DetectImageUseCase } from './detect-image.use-case';
import { DetectionEvidenceEntity } from './detection-evidence.entity';
import { DetectionRunEntity } from './detection-run.entity';
import { DetectionRunRepository } from './detection-run.repository';

describe('DetectImageUseCase (real PostgreSQL and S3)', () => {
  const schema = uniqueName('it_aidetect');
  let s3: S3rver;
  let storage: ObjectStorage;
  let dataSource: DataSource;
  let provider: AiDetectorProvider;
  let useCase: DetectImageUseCase;
  let context: HandlerContext;
  // ExifTools of earlier test files of this Jest worker, which run on (their own module instances)
  let otherExiftools: number[];

  beforeAll(async () => {
    otherExiftools = exiftoolChildPids();
    s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await s3.run();
    storage = new ObjectStorage(testStorageConfig(`http://127.0.0.1:${port}`));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({
      url: testInfra.databaseUrl,
      schema,
      entities: [...AIDETECT_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: AIDETECT_MIGRATIONS,
      applicationName: 'it',
    });
    const config = { detection: { maxPixels: 50_000_000, maxInputBytes: 10_000_000, concurrency: 1, maxAttempts: 2 } } as AiDetectorConfig;
    provider = new AiDetectorProvider(config);
    await provider.onModuleInit();
    useCase = new DetectImageUseCase(new TransactionRepository(dataSource), config, new DetectionRunRepository(), provider, storage, new OutboxWriter(new ManualClock(new Date())));
    context = {
      transaction: async (work) => {
        await new TransactionRepository(dataSource).run(work);
        return true;
      },
    } as HandlerContext;
  });

  afterAll(async () => {
    await provider.onModuleDestroy();
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
    await s3.close();
  });

  const job = (fileId: string, key: string): AiDetectionJob => ({
    orderId: '41',
    accountId: '7',
    fileId,
    input: { bucket: storage.buckets.inputs, key, fileName: 'image.png' },
    outputBucket: storage.buckets.outputs,
    outputPrefix: '7/41/ai/',
    generateHeatmap: true,
    generateOverlay: true,
  });

  /** The data of the outbox events of `subject` (what the job announced). */
  const announced = async <T>(subject: 'evt.aidetect.detection.completed' | 'evt.aidetect.detection.failed'): Promise<T[]> =>
    (await dataSource.getRepository(OutboxEventEntity).findBy({ subject })).map((e) => (e.envelope as unknown as { data: T }).data);

  it('records a marked image as likely_ai with its evidence, stores heatmap, overlay and thumbnail, and reports once', async () => {
    const photo = encodeSdMark(syntheticPhoto(384, 256, 5), SD_MARK_MESSAGES[0].bits);
    const png = await sharp(Buffer.from(photo.data), { raw: { width: 384, height: 256, channels: 3 } }).png().toBuffer();
    await storage.put(storage.buckets.inputs, '7/41/inputs/1/image.png', png, 'image/png');

    await useCase.execute(job('1', '7/41/inputs/1/image.png'), context);

    const run = await dataSource.getRepository(DetectionRunEntity).findOneByOrFail({ orderId: '41', fileId: '1' });
    expect(run.status).toBe('completed');
    expect(run.category).toBe('likely_ai');
    const evidence = await dataSource.getRepository(DetectionEvidenceEntity).findBy({ runId: run.id });
    expect(evidence.map((e) => e.finding)).toContain('sdWatermark.detected');
    const [event] = await dataSource.getRepository(OutboxEventEntity).findBy({ subject: 'evt.aidetect.detection.completed' });
    const data = (event.envelope as unknown as { data: AiDetectionCompletedEvent }).data;
    expect(data.probability).toBeGreaterThanOrEqual(0.75);
    expect(data.verdict).toBe('generated');
    expect(data.images.preview).toBeNull(); // already under 1600 px: the original is shown
    // the input as analysed: its report certifies these bytes even if the stored object is replaced later
    expect(data.examined).toEqual({ sha256: createHash('sha256').update(png).digest('hex'), size: png.length });
    for (const image of [data.images.heatmap!, data.images.overlay!, data.images.thumbnail]) {
      const stored = await storage.getBuffer(image.bucket, image.key, 10_000_000);
      expect((await sharp(stored).metadata()).format).toBe('webp');
    }
  });

  it('fails an input that is not an image with a public code and no images', async () => {
    await storage.put(storage.buckets.inputs, '7/41/inputs/2/image.png', Buffer.from('plain text, not pixels'), 'image/png');

    await useCase.execute(job('2', '7/41/inputs/2/image.png'), context);

    const run = await dataSource.getRepository(DetectionRunEntity).findOneByOrFail({ orderId: '41', fileId: '2' });
    expect([run.status, run.failureCode]).toEqual(['failed', 'AI_DETECTION_FILE_INVALID']);
    const events = await dataSource.getRepository(OutboxEventEntity).findBy({ subject: 'evt.aidetect.detection.failed' });
    expect(events.map((e) => (e.envelope as unknown as { data: unknown }).data)).toEqual([{ orderId: '41', fileId: '2', code: 'AI_DETECTION_FILE_INVALID' }]);
  });

  // Review: a read that reached ExifTool's deadline because the machine was overloaded dropped the metadata signal for
  // good (`metadata.unreadable`). Now the attempt fails and the job's redelivery reads it. ExifTool paused (SIGSTOP)
  // uses no CPU until its 20 s deadline: what a starved process looks like.
  it('fails the attempt, for a retry, when the detector\'s ExifTool waited for the machine until its deadline', async () => {
    const png = withPngChunk(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#468' } }).png().toBuffer(), 'tEXt', Buffer.from('parameters\0a lighthouse at dusk, Steps: 20', 'latin1'));
    await storage.put(storage.buckets.inputs, '7/41/inputs/3/image.png', png, 'image/png');
    // The detector's ExifTool, started by a first detection (which reads the metadata).
    expect((await provider.detect(png)).evidence.map((e) => e.finding)).toContain('metadata.generatorParameters');
    const [pid] = exiftoolChildPids().filter((other) => !otherExiftools.includes(other));
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');

    await expect(useCase.execute(job('3', '7/41/inputs/3/image.png'), context)).rejects.toMatchObject({ name: 'ExiftoolMachineFailure', reason: 'starved' });
    expect((await announced<{ fileId: string }>('evt.aidetect.detection.failed')).map((failed) => failed.fileId)).not.toContain('3');

    // The redelivery: a new ExifTool reads the metadata.
    await useCase.execute(job('3', '7/41/inputs/3/image.png'), context);
    const data = (await announced<AiDetectionCompletedEvent>('evt.aidetect.detection.completed')).find((d) => d.fileId === '3');
    expect(data?.evidence.map((e) => e.finding)).toContain('metadata.generatorParameters');
  }, 90_000);

  // Review: a C2PA read that reached its deadline because the machine starved the reader gave `c2pa.unreadable` for
  // good. Now the attempt fails and the redelivery reads the manifest. The reader paused (SIGSTOP) uses no CPU.
  it('fails the attempt, for a retry, when the C2PA reader waited for the machine until its deadline', async () => {
    const png = await withContentCredentials(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#864' } }).png().toBuffer(), 'trainedAlgorithmicMedia');
    await storage.put(storage.buckets.inputs, '7/41/inputs/4/image.png', png, 'image/png');
    // the reader started by a first read, then paused (SIGSTOP) while idle, before the attempt is given to it: it uses
    // no CPU, however long it waits and however loaded the machine (a new deadline keeps the process)
    await closeC2paReader();
    await pauseChildStartedBy('/c2pa-worker.mjs', async () => expect((await readC2pa(png, 'image/png')).evidence[0]).toMatchObject({ finding: 'c2pa.ai' }));
    configureC2paReader({ deadlineMs: 3000 });
    try {
      const error = await useCase.execute(job('4', '7/41/inputs/4/image.png'), context).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WorkerFailure);
      expect(error).toMatchObject({ code: WorkerFailureCode.STARVED });
    } finally {
      configureC2paReader(DEFAULT_C2PA_READER_LIMITS);
    }
    expect((await announced<{ fileId: string }>('evt.aidetect.detection.failed')).map((failed) => failed.fileId)).not.toContain('4');

    // The redelivery: a new reader reads the manifest.
    await useCase.execute(job('4', '7/41/inputs/4/image.png'), context);
    const data = (await announced<AiDetectionCompletedEvent>('evt.aidetect.detection.completed')).find((d) => d.fileId === '4');
    expect(data?.evidence.map((e) => e.finding)).toContain('c2pa.ai');
  }, 90_000);
});

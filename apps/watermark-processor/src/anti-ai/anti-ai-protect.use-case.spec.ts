// One anti-AI file end to end inside the processor, against real PostgreSQL (issuance registry, outbox),
// a real S3 server for our storage, and a second real S3 server over HTTPS standing for the client's
// bucket, reached through presigned PUT URLs (zero-copy). Images are generated here.
import { OptOutMetadataWriter, readContentCredentials } from '@cp/anti-ai';
import { SystemClock } from '@cp/clock';
import { AntiAiFailureCode, AntiAiJob, EventEnvelope, EventSubjects } from '@cp/contracts';
import { ErasedScopesRepository, openServiceDatabase, TransactionRepository } from '@cp/database';
import { HandlerContext, MESSAGING_ENTITIES, OutboxEventEntity, OutboxWriter } from '@cp/messaging';
import { ObjectStorage } from '@cp/storage';
import { pauseExiftoolStartedBy, loopbackTlsCertificate, testInfra, testStorageConfig, uniqueName } from '@cp/testing';
import { Client } from 'minio';
import { mkdtempSync } from 'node:fs';
import { Agent } from 'node:https';
import { createServer, AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { WATERMARK_ENTITIES } from '../database/entities';
import { WATERMARK_MIGRATIONS } from '../database/migrations';
import { IssuanceEntity } from '../issuance/issuance.entity';
import { IssuanceRepository } from '../issuance/issuance.repository';
import { WatermarkProcessorConfig } from '../watermark-processor.config';
import { AntiAiProtectUseCase, antiAiWatermarkText } from './anti-ai-protect.use-case';
import { AntiAiProtector } from './anti-ai-protector';
import { OutputTargetUploader } from './output-target-uploader';

async function picture(format: 'jpeg' | 'png'): Promise<Buffer> {
  const width = 320;
  const height = 240;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) {
    const pixel = Math.floor(i / 3);
    raw[i] = ((pixel % width) * (1 + (i % 3)) + Math.floor(pixel / width) * 2) & 0xff;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })[format]().toBuffer();
}

describe('AntiAiProtectUseCase (real PostgreSQL, S3 and an HTTPS S3 target)', () => {
  const schema = uniqueName('it_antiai');
  const suffix = uniqueName('a').replace('_', '-');
  const clientBucket = `client-${suffix}`;
  let ours: S3rver;
  let theirs: S3rver;
  let storage: ObjectStorage;
  let client: Client;
  let dataSource: DataSource;
  let caFile: string;
  let config: WatermarkProcessorConfig;
  let protector: AntiAiProtector;
  const metadata = new OptOutMetadataWriter();
  let closedPort: number;

  beforeAll(async () => {
    const tls = loopbackTlsCertificate();
    caFile = tls.certFile;
    ours = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false });
    const { port } = await ours.run();
    theirs = new S3rver({ address: '127.0.0.1', port: 0, directory: mkdtempSync(path.join(tmpdir(), 's3-')), silent: true, vhostBuckets: false, key: tls.key, cert: tls.cert });
    const target = await theirs.run();
    client = new Client({
      endPoint: '127.0.0.1',
      port: target.port,
      useSSL: true,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      region: 'us-east-1',
      pathStyle: true,
      transportAgent: new Agent({ ca: tls.cert }),
    });
    await client.makeBucket(clientBucket, 'us-east-1');
    storage = new ObjectStorage(testStorageConfig(`http://127.0.0.1:${port}`));
    await storage.ensureBuckets();
    dataSource = await openServiceDatabase({
      url: testInfra.databaseUrl,
      schema,
      entities: [...WATERMARK_ENTITIES, ...MESSAGING_ENTITIES],
      migrations: WATERMARK_MIGRATIONS,
      applicationName: 'it',
    });
    config = {
      watermark: { secret: 'anti-ai-use-case-spec-secret', maxPixels: 10_000_000, maxInputBytes: 5 * 1024 * 1024, concurrency: 1, maxAttempts: 2 },
      antiAi: { target: { deadlineMs: 5000, maxBytes: 64 * 1024 * 1024, allowPrivate: false, allowedIps: ['127.0.0.1'], extraCaFile: caFile } },
    } as WatermarkProcessorConfig;
    protector = new AntiAiProtector(config);
    // A port nothing listens on: bound, then released.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });

  afterAll(async () => {
    await protector.onApplicationShutdown();
    await metadata.close();
    await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await dataSource.destroy();
    await ours.close();
    await theirs.close();
  });

  function useCase(uploaderConfig: WatermarkProcessorConfig = config): AntiAiProtectUseCase {
    const clock = new SystemClock();
    return new AntiAiProtectUseCase(
      new TransactionRepository(dataSource),
      config,
      new IssuanceRepository(dataSource, new ErasedScopesRepository()),
      protector,
      new OutputTargetUploader(uploaderConfig, clock),
      storage,
      new OutboxWriter(clock),
    );
  }

  const context: HandlerContext = {
    eventId: 'e',
    deliveryCount: 1,
    signal: new AbortController().signal,
    transaction: (work) => new TransactionRepository(dataSource).run(work).then(() => true),
  };

  let sequence = 0;
  async function job(format: 'jpeg' | 'png', overrides: Partial<AntiAiJob> = {}): Promise<AntiAiJob> {
    sequence += 1;
    const orderId = String(9000 + sequence);
    const input = { bucket: storage.buckets.inputs, key: `1/${orderId}/inputs/1/photo.${format}`, fileName: `photo.${format}` };
    await storage.put(input.bucket, input.key, await picture(format));
    return {
      orderId,
      accountId: '41',
      outputFileId: `${orderId}-1`,
      strength: 'medium',
      input,
      output: { bucket: storage.buckets.outputs, key: `1/${orderId}/outputs/${orderId}-1/photo.${format}`, fileName: `photo.${format}` },
      ...overrides,
    };
  }

  async function eventsOf(orderId: string): Promise<Array<{ subject: string; data: Record<string, unknown> }>> {
    const rows = await dataSource.getRepository(OutboxEventEntity).find();
    return rows
      .map((row) => ({ subject: row.subject, data: (row.envelope as EventEnvelope<Record<string, unknown>>).data }))
      .filter((event) => event.data.orderId === orderId);
  }

  async function presignedPut(key: string, seconds = 600): Promise<{ url: string; presignedUrlExpiresAt: string }> {
    const url = await client.presignedPutObject(clientBucket, key, seconds);
    return { url, presignedUrlExpiresAt: new Date(Date.now() + seconds * 1000).toISOString() };
  }

  async function clientObject(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await client.getObject(clientBucket, key)) {
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  it('stores the protected file in our storage and reports its layers', async () => {
    const work = await job('png');
    await useCase().execute(work, context);
    const output = await storage.getBuffer(work.output!.bucket, work.output!.key, 10 * 1024 * 1024);
    const original = await storage.getBuffer(work.input.bucket, work.input.key, 10 * 1024 * 1024);
    expect((await sharp(output).raw().toBuffer()).equals(await sharp(original).raw().toBuffer())).toBe(true);
    expect((await metadata.read(output, 'png')).dataMining).toBe('DMI-PROHIBITED-AIMLTRAINING');
    expect((await readContentCredentials(output, 'png')).trainingMining['cawg.ai_training']).toBe('notAllowed');
    expect(await eventsOf(work.orderId)).toEqual([
      {
        subject: EventSubjects.antiAiOutputCompleted,
        data: { orderId: work.orderId, outputFileId: work.outputFileId, delivery: 'stored', objectKey: work.output!.key, size: output.length, layers: ['optOutMetadata', 'contentCredentials'] },
      },
    ]);
  });

  it("writes the order's v2 thumbnail (WebP within 740×400) when the job asks for it, and says so", async () => {
    const thumbnail = { bucket: storage.buckets.outputs, key: `1/${9000 + sequence + 1}/thumbnail.webp`, fileName: 'thumbnail.webp' };
    const work = await job('jpeg', { thumbnail });
    await useCase().execute(work, context);
    const made = await sharp(await storage.getBuffer(thumbnail.bucket, thumbnail.key, 1024 * 1024)).metadata();
    expect([made.format, made.width, made.height]).toEqual(['webp', 320, 240]);
    const [event] = await eventsOf(work.orderId);
    expect(event.data.thumbnail).toEqual(thumbnail);
  });

  // Review: an ordinary file whose rewrite reached ExifTool's deadline on an overloaded machine was refused for good
  // (WATERMARK_FILE_INVALID). Now the attempt fails and the redelivery protects it. ExifTool paused (SIGSTOP) uses no
  // CPU until its 30 s deadline: what a starved process looks like.
  it('fails the attempt, for a retry, when the opt-out writer\'s ExifTool waited for the machine until its deadline', async () => {
    const own = new AntiAiProtector(config);
    const clock = new SystemClock();
    const protect = new AntiAiProtectUseCase(new TransactionRepository(dataSource), config, new IssuanceRepository(dataSource, new ErasedScopesRepository()), own, new OutputTargetUploader(config, clock), storage, new OutboxWriter(clock));
    try {
      // Its ExifTool, started by a first file.
      const first = await job('png');
      await pauseExiftoolStartedBy(() => protect.execute(first, context));
      const work = await job('png');
      await expect(protect.execute(work, context)).rejects.toMatchObject({ name: 'ExiftoolMachineFailure', reason: 'starved' });
      expect(await eventsOf(work.orderId)).toEqual([]);
      // The redelivery: a new ExifTool rewrites it.
      await protect.execute(work, context);
      expect((await eventsOf(work.orderId)).map((event) => event.subject)).toEqual([EventSubjects.antiAiOutputCompleted]);
    } finally {
      await own.onApplicationShutdown();
    }
  }, 120_000);

  it('zero-copy: PUTs the result to the client presigned URL and keeps nothing', async () => {
    const work = await job('jpeg', { output: undefined, strength: 'low', outputTarget: await presignedPut('delivered/photo.jpg') });
    await useCase().execute(work, context);
    const delivered = await clientObject('delivered/photo.jpg');
    expect((await metadata.read(delivered, 'jpeg')).dataMining).toBe('DMI-PROHIBITED-GENAIMLTRAINING');
    expect(await storage.listKeys(storage.buckets.outputs, `1/${work.orderId}/`)).toEqual([]);
    expect(await eventsOf(work.orderId)).toEqual([
      {
        subject: EventSubjects.antiAiOutputCompleted,
        data: { orderId: work.orderId, outputFileId: work.outputFileId, delivery: 'zeroCopy', size: delivered.length, layers: ['optOutMetadata'] },
      },
    ]);
  });

  it.each([
    ['the declared expiry has passed', async () => ({ ...(await presignedPut('late/a.jpg')), presignedUrlExpiresAt: new Date(Date.now() - 1000).toISOString() }), AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED],
    [
      'the server says the URL expired',
      async () => {
        const target = await presignedPut('late/b.jpg', 1);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return { ...target, presignedUrlExpiresAt: new Date(Date.now() + 600_000).toISOString() };
      },
      AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_EXPIRED,
    ],
    ['the server refuses (no such bucket)', async () => ({ ...(await presignedPut('x.jpg')), url: (await presignedPut('x.jpg')).url.replace(clientBucket, `missing-${suffix}`) }), AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED],
    ['the target is plain HTTP', async () => ({ ...(await presignedPut('y.jpg')), url: (await presignedPut('y.jpg')).url.replace('https:', 'http:') }), AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN],
    ['nothing listens there', async () => ({ url: `https://127.0.0.1:${closedPort}/bucket/z.jpg`, presignedUrlExpiresAt: new Date(Date.now() + 600_000).toISOString() }), AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE],
  ])('zero-copy fails the file with a public code when %s', async (_case, target, code) => {
    const work = await job('jpeg', { output: undefined, strength: 'low', outputTarget: await target() });
    await useCase().execute(work, context);
    expect(await eventsOf(work.orderId)).toEqual([{ subject: EventSubjects.antiAiOutputFailed, data: { orderId: work.orderId, outputFileId: work.outputFileId, code } }]);
  });

  it('zero-copy refuses a private address on the connected socket unless its IP is on the allowed list', async () => {
    const strict = { ...config, antiAi: { target: { ...config.antiAi.target, allowedIps: [] } } } as WatermarkProcessorConfig;
    const work = await job('jpeg', { output: undefined, strength: 'low', outputTarget: await presignedPut('private/photo.jpg') });
    await useCase(strict).execute(work, context);
    expect(await eventsOf(work.orderId)).toEqual([
      { subject: EventSubjects.antiAiOutputFailed, data: { orderId: work.orderId, outputFileId: work.outputFileId, code: AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN } },
    ]);
    await expect(clientObject('private/photo.jpg')).rejects.toBeDefined();
  });

  it('high registers the opt-out mark as an issuance an extract order resolves', async () => {
    const work = await job('jpeg', { strength: 'high' });
    await useCase().execute(work, context);
    const issuance = await dataSource.getRepository(IssuanceEntity).findOneByOrFail({ outputFileId: work.outputFileId });
    expect(issuance).toMatchObject({ orderId: work.orderId, accountId: '41', watermarkText: antiAiWatermarkText(work), algorithm: 'v3' });
    const [event] = await eventsOf(work.orderId);
    expect(event?.data.layers).toEqual(['watermark', 'optOutMetadata', 'contentCredentials']);
  });

  it('fails a BMP with ANTI_AI_FORMAT_UNSUPPORTED', async () => {
    const work = await job('png');
    const header = Buffer.alloc(54);
    header.write('BM', 0);
    header.writeUInt32LE(54 + 4 * 4 * 3, 2);
    header.writeUInt32LE(54, 10);
    header.writeUInt32LE(40, 14);
    header.writeInt32LE(4, 18);
    header.writeInt32LE(4, 22);
    header.writeUInt16LE(1, 26);
    header.writeUInt16LE(24, 28);
    await storage.put(work.input.bucket, work.input.key, Buffer.concat([header, Buffer.alloc(48, 9)]));
    await useCase().execute(work, context);
    expect(await eventsOf(work.orderId)).toEqual([
      { subject: EventSubjects.antiAiOutputFailed, data: { orderId: work.orderId, outputFileId: work.outputFileId, code: AntiAiFailureCode.ANTI_AI_FORMAT_UNSUPPORTED } },
    ]);
  });
});

// The extract use case with fakes (no database, no S3, no engine): candidate tracing's recipients (issue 36) are
// looked up by the original's bytes, and several accused give `detected` with no text and the list in the evidence.
import { DetectionEvidenceView, EventSubjects, ExtractCompletedEvent, ExtractJob } from '@cp/contracts';
import { ColluderTrace, issuedPayload } from '@cp/watermark';
import { createHash } from 'node:crypto';
import { Detection, WatermarkEngine } from '../engine/watermark-engine';
import { IssuanceEntity } from '../issuance/issuance.entity';
import { IssuanceRepository, OriginalRef } from '../issuance/issuance.repository';
import { fakeContext, MemoryStorage, RecordingOutbox } from '../testing/fakes';
import { WatermarkProcessorConfig } from '../watermark-processor.config';
import { ExtractWatermarkUseCase } from './extract-watermark.use-case';

const config = { watermark: { maxInputBytes: 1000 } } as WatermarkProcessorConfig;
const job: ExtractJob = {
  orderId: '40',
  accountId: '3',
  original: { bucket: 'in', key: '3/40/inputs/1/photo.png', fileName: 'photo.png' },
  inspected: { bucket: 'in', key: '3/40/inputs/2/leak.png', fileName: 'leak.png' },
};
const issuance = (id: string, text: string): IssuanceEntity =>
  ({ id, accountId: '3', orderId: `9${id}`, outputFileId: `${id}-1`, watermarkText: text, algorithm: 'v3', inputKey: null, inputSha256: null, scrambled: true, createdAt: new Date() });
const recipients = [issuance('11', 'alice'), issuance('12', 'bob'), issuance('13', 'carol')];
const evidence: DetectionEvidenceView = { payloadBits: 64, checkBits: 40, checkBitsMatched: 0, codedBits: 330, codedBitsAgreeing: 0, softAgreement: 0.4, threshold: 0.2, decodingAttempts: 29, chanceBound: 2.6e-11 };

function trace(accused: bigint[]): ColluderTrace {
  return {
    candidatesTested: 3,
    level: 2.6e-11,
    threshold: 7.1,
    mixing: accused.length > 1 ? 'averaging' : null,
    bestInnocentZ: 1.2,
    accused: accused.map((payload, i) => ({ payload, z: 12 - i, bound: 1e-30, correlation: 0.6, regionShare: null })),
  };
}

function setup(detection: (candidates: readonly bigint[]) => Detection) {
  const storage = new MemoryStorage();
  const outbox = new RecordingOutbox();
  const lookups: OriginalRef[] = [];
  const issuances = {
    findCandidates: (original: OriginalRef) => {
      lookups.push(original);
      return Promise.resolve(recipients);
    },
    findByPayload: (payload: bigint) => Promise.resolve(recipients.filter((r) => issuedPayload(BigInt(r.id)) === payload)),
  } as unknown as IssuanceRepository;
  const engine = {
    extract: (_i: Buffer, _o: Buffer, _kind: string, _algorithm: string, _signal: AbortSignal, candidates: readonly bigint[]) => Promise.resolve(detection(candidates)),
  } as unknown as WatermarkEngine;
  storage.seed('in', job.original.key, Buffer.from('original bytes'));
  storage.seed('in', job.inspected.key, Buffer.from('leaked bytes'));
  const useCase = new ExtractWatermarkUseCase(issuances, config, engine, storage.asStorage(), outbox.asOutbox());
  return { outbox, lookups, useCase };
}

const completed = (outbox: RecordingOutbox): ExtractCompletedEvent => {
  const message = outbox.messages.find((m) => m.subject === EventSubjects.extractCompleted);
  if (!message) throw new Error('no completed event');
  return message.payload as ExtractCompletedEvent;
};

describe('ExtractWatermarkUseCase: candidate tracing', () => {
  it("passes the recipients of the same original, and names several colluders in the evidence, with no single text", async () => {
    let seen: readonly bigint[] = [];
    const payloads = recipients.map((r) => issuedPayload(BigInt(r.id)));
    const { outbox, lookups, useCase } = setup((candidates) => {
      seen = candidates;
      return { status: 'detected', confidence: 0.6, method: 'registered', evidence, capturedFromPdf: false, trace: trace([payloads[2], payloads[0]]) };
    });
    await useCase.execute(job, fakeContext());
    expect(lookups).toEqual([{ accountId: '3', algorithm: 'v3', inputKey: job.original.key, inputSha256: createHash('sha256').update('original bytes').digest('hex') }]);
    expect([...seen].sort()).toEqual([...payloads].sort());
    const event = completed(outbox);
    expect([event.detectionStatus, event.watermarkText]).toEqual(['detected', null]);
    expect(event.evidence?.colluders).toEqual({
      candidatesTested: 3,
      level: 2.6e-11,
      threshold: 7.1,
      mixing: 'averaging',
      accused: [
        { orderId: '913', watermarkText: 'carol', z: 12, bound: 1e-30, correlation: 0.6, regionShare: null },
        { orderId: '911', watermarkText: 'alice', z: 11, bound: 1e-30, correlation: 0.6, regionShare: null },
      ],
    });
    // nothing that cannot be sent as JSON (the library's payloads are bigints)
    expect(() => JSON.stringify(event)).not.toThrow();
  });

  it('one accused recipient: its text, as a single leaker', async () => {
    const payload = issuedPayload(12n);
    const { outbox, useCase } = setup(() => ({ status: 'detected', payload, confidence: 0.9, method: 'registered', evidence, capturedFromPdf: false, trace: trace([payload]) }));
    await useCase.execute(job, fakeContext());
    const event = completed(outbox);
    expect([event.detectionStatus, event.watermarkText, event.evidence?.colluders?.accused.map((a) => a.watermarkText)]).toEqual(['detected', 'bob', ['bob']]);
  });

  it('records the bytes it examined, which a report certifies whatever the stored objects hold later', async () => {
    const { outbox, useCase } = setup(() => ({ status: 'not_detected', confidence: 0, method: 'registered', capturedFromPdf: false }));
    await useCase.execute(job, fakeContext());
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(completed(outbox).examined).toEqual({
      original: { sha256: sha256('original bytes'), size: 'original bytes'.length },
      inspected: { sha256: sha256('leaked bytes'), size: 'leaked bytes'.length },
    });
  });
});

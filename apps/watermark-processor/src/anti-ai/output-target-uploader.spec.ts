// Zero-copy delivery against a hostile target (HTTPS on loopback): every delivery ends within
// ANTI_AI_TARGET_DEADLINE_MS with its outcome or public code, a redirect is never followed, a private address
// that is not allow-listed is forbidden (its IPv4-mapped IPv6 form too), and the next delivery behind a hostile
// one succeeds: the processor's slot is free again.
import { SystemClock } from '@cp/clock';
import { AntiAiFailureCode, AntiAiOutputTarget } from '@cp/contracts';
import { HostileBehaviour, HostilePeer } from '@cp/testing';
import { WatermarkProcessorConfig } from '../watermark-processor.config';
import { OutputTargetRejected, OutputTargetUploader } from './output-target-uploader';

describe('OutputTargetUploader against a hostile target', () => {
  let peer: HostilePeer;
  let uploader: OutputTargetUploader;
  let config: WatermarkProcessorConfig;
  // Larger than the sockets' buffers, so that a target that does not read holds the upload.
  const result = Buffer.alloc(4 * 1024 * 1024, 9);
  // The delivery behind a hostile one shows the uploader free again; its size does not matter. Small, as 4 MiB through
  // TLS on a loaded machine (a CI run beside other work) once took longer than the 2.5 s deadline itself.
  const next = Buffer.alloc(64 * 1024, 7);

  beforeAll(async () => {
    peer = await HostilePeer.start({ tls: true, intervalMs: 200, readChunkBytes: 512 });
    config = { antiAi: { target: { deadlineMs: 2500, maxBytes: 8 * 1024 * 1024, allowPrivate: false, allowedIps: ['127.0.0.1'], extraCaFile: peer.caFile } } } as WatermarkProcessorConfig;
    uploader = new OutputTargetUploader(config, new SystemClock());
  });

  afterAll(() => peer.close());

  const target = (url: string): AntiAiOutputTarget => ({ url, presignedUrlExpiresAt: new Date(Date.now() + 600_000).toISOString() });

  async function outcomeOf(work: Promise<void>): Promise<AntiAiFailureCode | 'delivered'> {
    try {
      await work;
      return 'delivered';
    } catch (error) {
      if (error instanceof OutputTargetRejected) {
        return error.code;
      }
      throw error;
    }
  }

  it.each<[HostileBehaviour, AntiAiFailureCode | 'delivered']>([
    // A 2xx is the delivery: whatever the target does with its body afterwards does not hold the slot.
    ['trickle', 'delivered'],
    ['slow-after-200', 'delivered'],
    ['endless', 'delivered'],
    ['reset', 'delivered'],
    ['slow-reader', AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_UNREACHABLE],
    ['redirect-private', AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED],
    ['redirect-metadata', AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED],
  ])('%s: ends as %s within the deadline, and the next delivery succeeds', async (behaviour, expected) => {
    const okBefore = peer.hits.get('ok') ?? 0;
    expect(await outcomeOf(uploader.put(target(peer.url(behaviour, 'result.jpg')), result, 'image/jpeg'))).toBe(expected);
    expect(peer.hits.get('ok') ?? 0).toBe(okBefore);
    expect(await outcomeOf(uploader.put(target(peer.url('ok', 'result.jpg')), next, 'image/jpeg'))).toBe('delivered');
  });

  it('forbids private addresses that are not allow-listed, in their IPv4-mapped IPv6 form too', async () => {
    const port = new URL(peer.origin).port;
    for (const host of ['[::ffff:10.0.0.1]', '[::ffff:169.254.169.254]', '169.254.169.254', `[::ffff:127.0.0.2]:${port}`, `[::1]:${port}`]) {
      expect(await outcomeOf(uploader.put(target(`https://${host}/bucket/result.jpg`), result, 'image/jpeg'))).toBe(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_FORBIDDEN);
    }
  });

  it('refuses a result over the byte cap without sending it', async () => {
    const before = peer.hits.get('ok') ?? 0;
    const small = new OutputTargetUploader({ antiAi: { target: { ...config.antiAi.target, maxBytes: 1024 } } } as WatermarkProcessorConfig, new SystemClock());
    expect(await outcomeOf(small.put(target(peer.url('ok', 'result.jpg')), result, 'image/jpeg'))).toBe(AntiAiFailureCode.ANTI_AI_OUTPUT_TARGET_REFUSED);
    expect(peer.hits.get('ok') ?? 0).toBe(before);
  });
});

import { DomainException, ErrorCode } from '@cp/contracts';
import { Order } from '../../domain/order';
import { toOrderView } from '../order-view.mapper';
import { EMBED_TEXTS_MAX_BYTES, embedOrderRules } from './embed-order.rules';

/** NATS's default `max_payload`: every view of an order travels as one message. */
const NATS_DEFAULT_MAX_PAYLOAD = 1024 * 1024;

function request(files: number, texts: (file: number) => string[], fileName: (file: number) => string = (file) => `photo-${file}.jpg`) {
  return { files: Array.from({ length: files }, (_, file) => ({ fileName: fileName(file), watermarks: texts(file).map((text) => ({ text })) })) };
}

function refusal(run: () => unknown): unknown {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof DomainException ? error.code : error;
  }
}

describe('embedOrderRules', () => {
  it('one output per text, one credit each', () => {
    const rules = embedOrderRules(request(2, (file) => (file === 0 ? ['alice', 'bob'] : ['carol'])));
    expect([rules.type, rules.credits, rules.files.map((file) => file.fileName)]).toEqual(['watermarkEmbed', 3, ['photo-0.jpg', 'photo-1.jpg']]);
  });

  it('refuses texts over the bound together with 413 PAYLOAD_TOO_LARGE, counted as a view carries them', () => {
    // 100 files × 10 texts × 1,000 characters: inside every per-field limit and the 1 MiB body, but a 1.17 MB view.
    expect(refusal(() => embedOrderRules(request(100, () => Array.from({ length: 10 }, (_, index) => `${index}`.repeat(1000)))))).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
    const atBound = Math.floor(EMBED_TEXTS_MAX_BYTES / 1000);
    expect(refusal(() => embedOrderRules(request(atBound, () => ['x'.repeat(1000)])))).toBeNull();
    // Quotes are sent escaped: 600 of them weigh 1,200 bytes in a view.
    const quoted = Math.floor(EMBED_TEXTS_MAX_BYTES / 1200) + 1;
    expect(refusal(() => embedOrderRules(request(quoted, () => ['"'.repeat(600)])))).toBe(ErrorCode.PAYLOAD_TOO_LARGE);
  });

  it('the largest order the rules accept has a view under one NATS message, with the longest names and upload URLs', () => {
    // The worst case for every other field: 100 files named with 255 characters of three UTF-8 bytes each, each
    // with an upload URL carrying that name percent-encoded (9 bytes a character) and a presigned query.
    const name = (file: number) => `${'写'.repeat(250)}-${String(file).padStart(3, '0')}.jpg`.slice(-255);
    const perFile = Math.floor(EMBED_TEXTS_MAX_BYTES / 100 / 10);
    const rules = embedOrderRules(request(100, () => Array.from({ length: 10 }, () => 'x'.repeat(perFile)), name));
    const createdAt = new Date('2026-11-29T00:00:00.000Z');
    const order = Order.create(
      { id: '99999999999999999999', accountId: '99999999999999999999', mode: 'live', type: rules.type, apiVersion: 'v3', creditsCharged: rules.credits, options: null, expiresAt: createdAt, createdAt },
      rules.files.map((file, index) => ({ ...file, id: String(BigInt('99999999999999999000') + BigInt(index)) })),
      rules.outputs ?? (() => []),
    );
    const query = `?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${'A'.repeat(20)}%2F20261129%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261129T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=${'f'.repeat(64)}`;
    const uploadUrls = Object.fromEntries(
      order.files.map((file) => [file.id, `https://storage.example.com/cp-inputs/${order.state.accountId}/${order.id}/inputs/${file.id}/${encodeURIComponent(file.fileName)}${query}`]),
    );
    const bytes = Buffer.byteLength(JSON.stringify({ response: toOrderView(order, uploadUrls), isDisposed: true, id: 'f'.repeat(36) }));
    expect(order.outputs).toHaveLength(1000);
    expect(new Set(order.files.map((file) => file.id)).size).toBe(100);
    expect(bytes).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD);
  });
});

import { CODED_BITS, convEncode, decodeSoft, infoBits, INFO_BITS, LIST_SIZE, listViterbiDecode, payloadTag, viterbiDecode } from './payload';
import { buildLayers } from './pattern';

const key = { secret: 'unit', version: 'v3' as const };

describe('payload code', () => {
  it('encodes 104 info bits into 330 coded bits and decodes them back', () => {
    const bits = infoBits(0xdeadbeefcafef00dn, key);
    const coded = convEncode(bits);
    expect(coded.length).toBe(CODED_BITS);
    const soft = Float64Array.from(coded, (b) => (b ? 1 : -1));
    expect(Array.from(viterbiDecode(soft, INFO_BITS))).toEqual(Array.from(bits));
  });

  it('corrects erasures and bit errors', () => {
    const coded = convEncode(infoBits(42n, key));
    const soft = Float64Array.from(coded, (b) => (b ? 1 : -1));
    for (let i = 0; i < soft.length; i += 5) soft[i] = 0; // 20% erased
    for (let i = 3; i < soft.length; i += 17) soft[i] = -soft[i] * 0.5; // ~6% flipped
    const d = decodeSoft(soft, key);
    expect(d.tagOk).toBe(true);
    expect(d.payload).toBe(42n);
  });

  it('the tag depends on key and version', () => {
    expect(payloadTag(7n, key)).not.toBe(payloadTag(7n, { secret: 'unit', version: 'v2' }));
    expect(payloadTag(7n, key)).not.toBe(payloadTag(7n, { secret: 'other', version: 'v3' }));
    expect(payloadTag(7n, key)).toBeLessThan(1n << 40n);
  });

  it('a v3 key never validates a v2 code word', () => {
    const coded = convEncode(infoBits(123456789n, { secret: 'unit', version: 'v2' }));
    const d = decodeSoft(Float64Array.from(coded, (b) => (b ? 1 : -1)), key);
    expect(d.tagOk).toBe(false);
  });

  it('random soft values do not pass the check', () => {
    let seed = 1;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648 - 0.5;
    };
    let passed = 0;
    for (let t = 0; t < 200; t++) {
      const soft = Float64Array.from({ length: CODED_BITS }, rnd);
      if (decodeSoft(soft, key).tagOk) passed++;
    }
    expect(passed).toBe(0);
  });

  describe('list decoding', () => {
    let seed = 11;
    const uniform = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const gauss = (): number => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
    const noisy = (id: bigint, sd: number): Float64Array => Float64Array.from(convEncode(infoBits(id, key)), (b) => (b ? 1 : -1) + sd * gauss());
    const metric = (bits: Uint8Array, soft: Float64Array): number => convEncode(bits).reduce((m, b, i) => m + (b ? soft[i] : -soft[i]), 0);

    it('lists distinct code words, most likely first, the first being the plain decoder\'s', () => {
      for (let t = 0; t < 20; t++) {
        const soft = noisy(BigInt(t + 1) << 30n, 1.3);
        const list = listViterbiDecode(soft, INFO_BITS, LIST_SIZE);
        expect(list).toHaveLength(LIST_SIZE);
        expect(Array.from(list[0])).toEqual(Array.from(viterbiDecode(soft, INFO_BITS)));
        expect(new Set(list.map((b) => b.join(''))).size).toBe(LIST_SIZE);
        const m = list.map((b) => metric(b, soft));
        for (let i = 1; i < m.length; i++) expect(m[i]).toBeLessThanOrEqual(m[i - 1] + 1e-9);
      }
    });

    it('recovers noisy code words the single most likely one gets wrong, and never a wrong id', () => {
      let single = 0;
      let listed = 0;
      let wrong = 0;
      for (let t = 0; t < 200; t++) {
        const id = BigInt(Math.floor(uniform() * 2 ** 32)) << 20n;
        const soft = noisy(id, 1.25);
        const one = decodeSoft(soft, key);
        const many = decodeSoft(soft, key, LIST_SIZE);
        if (one.tagOk && one.payload === id) single++;
        if (many.tagOk && many.payload === id) listed++;
        if ((one.tagOk && one.payload !== id) || (many.tagOk && many.payload !== id)) wrong++;
      }
      expect(wrong).toBe(0);
      expect(listed).toBeGreaterThan(single * 1.3);
    });

    it('random soft values do not pass the check in any listed code word', () => {
      let passed = 0;
      for (let t = 0; t < 100; t++) if (decodeSoft(Float64Array.from({ length: CODED_BITS }, () => uniform() - 0.5), key, LIST_SIZE).tagOk) passed++;
      expect(passed).toBe(0);
    });
  });

  it('rejects payloads outside 64 bits', () => {
    expect(() => infoBits(-1n, key)).toThrow(RangeError);
    expect(() => infoBits(1n << 64n, key)).toThrow(RangeError);
  });

  it('v2 and v3 patterns are uncorrelated', () => {
    const [a] = buildLayers(key, [[64, 64]]);
    const [b] = buildLayers({ secret: 'unit', version: 'v2' }, [[64, 64]]);
    let c = 0;
    for (let i = 0; i < a.chip.length; i++) c += a.chip[i] * b.chip[i];
    expect(Math.abs(c / a.chip.length)).toBeLessThan(0.1);
  });
});

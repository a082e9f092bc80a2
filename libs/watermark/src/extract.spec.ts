import sharp from 'sharp';
import { embedImage } from './embed';
import { extractImage } from './extract';
import { CODED_BITS } from './payload';
import { astronautPng } from './testing/fixtures';

const key = { secret: 'extract-spec', version: 'v3' as const };
const id = 0x5eedfeedc0ffee01n;

describe('extraction diagnostics (issue 31: returned in the result, not kept in module state)', () => {
  let original: Buffer;
  let mirrored: Buffer;
  beforeAll(async () => {
    original = await sharp(await astronautPng()).resize(256, 256).png().toBuffer();
    const marked = await embedImage(original, id, { key });
    // a mirror image: registration has to find the geometry before the registered decoding can run
    mirrored = await sharp(marked.data).flop().png().toBuffer();
  }, 120_000);

  it('gives each of two concurrent extractions its own registration and decoding figures when asked', async () => {
    const [registered, blind] = await Promise.all([
      extractImage(mirrored, original, { key, diagnostics: true }),
      extractImage(mirrored, null, { key, diagnostics: true }),
    ]);
    expect(registered).toMatchObject({ status: 'detected', payload: id, method: 'registered' });
    expect(registered.evidence?.transform?.mirrored).toBe(true);
    expect(registered.diagnostics?.registration?.ncc).toBeGreaterThanOrEqual(0.6);
    const decoding = registered.diagnostics?.registeredDecoding;
    expect(decoding?.zs).toHaveLength(2);
    for (const z of decoding?.zs ?? []) expect(z).toHaveLength(CODED_BITS);
    expect(decoding?.H).toBe(registered.diagnostics?.registration?.H);
    // no original: nothing was registered, whatever the other extraction found meanwhile
    expect(blind.diagnostics).toEqual({ registration: null, registeredDecoding: null });
  }, 120_000);

  it('returns no diagnostics unless asked', async () => {
    const plain = await extractImage(mirrored, original, { key });
    expect(plain).toMatchObject({ status: 'detected', payload: id });
    expect(plain).not.toHaveProperty('diagnostics');
  }, 120_000);
});

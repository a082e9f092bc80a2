import sharp, { OutputInfo } from 'sharp';
import { FALSE_MATCH_BOUND } from './extract';
import { embedImage, extractImage } from './index';
import { issuedPayload, isScrambledPayload, serialOfPayload } from './issued-payload';
import { CODED_BITS } from './payload';
import { buildLayers, gridDims } from './pattern';
import { mulberry32 } from './testing/random';
import { accusationThreshold, codeSigns, logNormalTail, MAX_ROUNDS, normalTail, nullScores, TraceCells, traceColluders, TraceInput, zOfLogTail } from './trace';

const key = { secret: 'trace-spec', version: 'v3' as const };

/** Deterministic uniform numbers (mulberry32) and standard normals (Box-Muller). */
function rng(seed: number): { u: () => number; n: () => number } {
  const u = mulberry32(seed);
  return { u, n: () => Math.sqrt(-2 * Math.log(u() + 1e-12)) * Math.cos(2 * Math.PI * u()) };
}

/** Soft observations of a copy mixed from `colluders` with per-bit strength `mu` each, plus unit noise. */
function observations(colluders: bigint[], mu: number, seed: number): Float64Array {
  const r = rng(seed);
  const w = new Float64Array(CODED_BITS);
  for (let i = 0; i < CODED_BITS; i++) w[i] = r.n();
  for (const p of colluders) {
    const c = codeSigns(p, key);
    for (let i = 0; i < CODED_BITS; i++) w[i] += mu * c[i];
  }
  return w;
}

const issued = Array.from({ length: 200 }, (_, i) => issuedPayload(BigInt(501 + i)));

/**
 * The decoys' scores against `input` (with `accused` cancelled) stay within the normal tail: at z > 2 no more than
 * Q(2) of them allows (2.3 %: 91 of 4,000, plus 4 sd of a binomial), none near an accusation, and tracing the decoys
 * alone (the marked recipients are not among them) accuses nobody.
 */
function expectDecoysWithinNormalTail(input: TraceInput, accused: bigint[], decoys: bigint[]): void {
  const t = 2;
  const z = nullScores(input, accused, decoys, key);
  const over = z.filter((v) => v > t).length;
  expect(over).toBeLessThan(decoys.length * normalTail(t) + 4 * Math.sqrt(decoys.length * normalTail(t)));
  expect(Math.max(...z)).toBeLessThan(accusationThreshold(200, FALSE_MATCH_BOUND));
  expect(traceColluders(input, decoys.slice(0, 500), key, FALSE_MATCH_BOUND).accused).toEqual([]);
}

/** Tracing `input` against the 200 issued names `recipient` alone, above the threshold and within the bound. */
function expectNamedAlone(input: TraceInput, recipient: bigint): void {
  const trace = traceColluders(input, issued, key, FALSE_MATCH_BOUND);
  expect(trace.accused.map((a) => a.payload)).toEqual([recipient]);
  expect(trace.accused[0].z).toBeGreaterThanOrEqual(accusationThreshold(issued.length, FALSE_MATCH_BOUND));
  expect(trace.accused[0].bound).toBeLessThanOrEqual(FALSE_MATCH_BOUND);
}

describe('issued payloads', () => {
  it('scramble serials into payloads with the top bit set, and back; older marks read as their serial', () => {
    for (const serial of [1n, 2n, 3n, 12345n, (1n << 63n) - 1n]) {
      const p = issuedPayload(serial);
      expect([isScrambledPayload(p), serialOfPayload(p)]).toEqual([true, serial]);
    }
    expect(serialOfPayload(42n)).toBe(42n);
    expect(isScrambledPayload(42n)).toBe(false);
    expect(() => issuedPayload(1n << 63n)).toThrow(RangeError);
  });

  it("makes consecutive recipients' code words nearly orthogonal (serials shared most coded bits)", () => {
    const corr = (a: bigint, b: bigint): number => {
      const x = codeSigns(a, key);
      const y = codeSigns(b, key);
      let s = 0;
      for (let i = 0; i < CODED_BITS; i++) s += x[i] * y[i];
      return s / CODED_BITS;
    };
    expect(corr(101n, 102n)).toBeGreaterThan(0.5);
    let worst = 0;
    for (let i = 1; i < 40; i++) worst = Math.max(worst, Math.abs(corr(issued[0], issued[i])));
    expect(worst).toBeLessThan(0.25);
  });
});

describe('candidate tracing on soft observations', () => {
  it('the tail and the threshold: Q(7) = 1.28e-12, and the threshold holds the Bonferroni bound at the level', () => {
    expect(normalTail(0)).toBeCloseTo(0.5, 6);
    expect(normalTail(7) / 1.279813e-12).toBeCloseTo(1, 4);
    const t = accusationThreshold(200, FALSE_MATCH_BOUND);
    expect(200 * MAX_ROUNDS * normalTail(t)).toBeLessThanOrEqual(FALSE_MATCH_BOUND * 1.0001);
    expect(200 * MAX_ROUNDS * normalTail(t - 0.01)).toBeGreaterThan(FALSE_MATCH_BOUND);
  });

  it('names every colluder of a strong mix of four, and nobody else', () => {
    const colluders = [issued[5], issued[60], issued[61], issued[150]];
    const trace = traceColluders({ zs: [observations(colluders, 2.5, 1)], cells: null }, issued, key, FALSE_MATCH_BOUND);
    expect(new Set(trace.accused.map((a) => a.payload))).toEqual(new Set(colluders));
    expect(trace.candidatesTested).toBe(200);
    expect(trace.mixing).toBe('undetermined');
    for (const a of trace.accused) expect(a.bound).toBeLessThanOrEqual(FALSE_MATCH_BOUND);
  });

  it('accuses nobody on noise, and the null scores of never-issued payloads are standard normal', () => {
    const input = { zs: [observations([], 0, 2)], cells: null };
    expect(traceColluders(input, issued, key, FALSE_MATCH_BOUND).accused).toEqual([]);
    const decoys = Array.from({ length: 2000 }, (_, i) => issuedPayload(BigInt(900_000 + i)));
    const z = nullScores(input, [], decoys, key);
    const mean = z.reduce((a, b) => a + b, 0) / z.length;
    const sd = Math.sqrt(z.reduce((a, b) => a + (b - mean) ** 2, 0) / z.length);
    expect(Math.abs(mean)).toBeLessThan(0.1);
    expect(Math.abs(sd - 1)).toBeLessThan(0.1);
  });

  it('a strong mark of colluders does not lift the innocents: their scores stay standard normal', () => {
    const colluders = [issued[1], issued[2], issued[3]];
    const input = { zs: [observations(colluders, 4, 3)], cells: null };
    const decoys = Array.from({ length: 2000 }, (_, i) => issuedPayload(BigInt(800_000 + i)));
    // before cancellation the colluders' marks are in the norm; after it they are gone: unit variance both times
    for (const accused of [[], colluders]) {
      const z = nullScores(input, accused, decoys, key);
      const sd = Math.sqrt(z.reduce((a, b) => a + b * b, 0) / z.length);
      expect(Math.abs(sd - 1)).toBeLessThan(0.1);
      expect(Math.max(...z)).toBeLessThan(accusationThreshold(200, FALSE_MATCH_BOUND));
    }
  });

  it('serials embedded before issue 36 are traced on their tag-driven bits only, and an innocent neighbour is not accused', () => {
    // serials 101..130: neighbours share most of their code word; only bits from step 64 on are tested
    const old = Array.from({ length: 30 }, (_, i) => BigInt(101 + i));
    const trace = traceColluders({ zs: [observations([old[4], old[5]], 3, 4)], cells: null }, old, key, FALSE_MATCH_BOUND);
    expect(new Set(trace.accused.map((a) => a.payload))).toEqual(new Set([old[4], old[5]]));
  });
});

describe('candidate tracing: the two layers tested jointly (issue 34, fifth pass)', () => {
  /** A copy whose fine layer lost the mark and kept only noise, large (its z-scores spread 3x): the coarse layer alone carries it. */
  function oneLayerMarked(recipient: bigint, mu: number, seed: number): Float64Array[] {
    const r = rng(seed);
    const fine = new Float64Array(CODED_BITS);
    for (let i = 0; i < CODED_BITS; i++) fine[i] = 3 * r.n();
    return [fine, observations([recipient], mu, seed + 1)];
  }
  const sumScore = (zs: Float64Array[], p: bigint): number => {
    const c = codeSigns(p, key);
    let dot = 0;
    let sq = 0;
    for (let i = 3; i < CODED_BITS; i++) {
      const w = zs[0][i] + zs[1][i];
      dot += w * c[i];
      sq += w * w;
    }
    return dot / Math.sqrt(sq);
  };

  it('names a recipient whose mark only one layer kept, which the sum of the layers misses', () => {
    const zs = oneLayerMarked(issued[17], 0.7, 11);
    const threshold = accusationThreshold(issued.length, FALSE_MATCH_BOUND);
    // the sum of the layers is below the threshold: tested alone, it would accuse nobody
    expect(sumScore(zs, issued[17])).toBeLessThan(threshold);
    expectNamedAlone({ zs, cells: null }, issued[17]);
  });

  it('holds each test to half the level: an innocent scores at most the normal tail, on noise and next to a strong mark', () => {
    const decoys = Array.from({ length: 4000 }, (_, i) => issuedPayload(BigInt(700_000 + i)));
    expectDecoysWithinNormalTail({ zs: [observations([], 0, 21), observations([], 0, 22)], cells: null }, [], decoys);
    expectDecoysWithinNormalTail({ zs: oneLayerMarked(issued[3], 1.5, 23), cells: null }, [issued[3]], decoys);
  });

  it('a score far in the tail stays finite: log Q and its inverse agree where Q itself underflows', () => {
    for (const z of [0.5, 2.9, 3, 7, 25, 40, 60]) expect(zOfLogTail(logNormalTail(z))).toBeCloseTo(z, 6);
    expect(Number.isFinite(logNormalTail(60))).toBe(true);
    expect(logNormalTail(7)).toBeCloseTo(Math.log(normalTail(7)), 8);
  });
});

describe('candidate tracing: the joint least-squares estimate as a third test', () => {
  /** Layers that hold the mark weakly (S_j about 5) and an estimate that holds it more strongly (about 9). */
  function weakLayers(recipient: bigint, seed: number): TraceInput {
    const zs = [observations([recipient], 0.2, seed), observations([recipient], 0.2, seed + 1)];
    return { zs, cells: null, estimate: observations([recipient], 0.5, seed + 2) };
  }

  it('names a recipient the layers alone leave below the threshold, on the estimate', () => {
    const input = weakLayers(issued[41], 31);
    const layersOnly = traceColluders({ zs: input.zs, cells: null }, issued, key, FALSE_MATCH_BOUND);
    expect(layersOnly.accused).toEqual([]);
    expectNamedAlone(input, issued[41]);
  });

  it('holds each of the three tests to a third of the level: innocents score at most the normal tail', () => {
    const decoys = Array.from({ length: 4000 }, (_, i) => issuedPayload(BigInt(900_000 + i)));
    expectDecoysWithinNormalTail({ zs: [observations([], 0, 41), observations([], 0, 42)], cells: null, estimate: observations([], 0, 43) }, [], decoys);
    expectDecoysWithinNormalTail(weakLayers(issued[5], 44), [], decoys);
    const strong = { zs: [observations([issued[6]], 1.5, 45), observations([issued[6]], 1.5, 46)], cells: null, estimate: observations([issued[6]], 1.5, 47) };
    expectDecoysWithinNormalTail(strong, [issued[6]], decoys);
  });

  it('an estimate that carries nothing costs the layers little: their tests at a third of the level instead of half', () => {
    const zs = [observations([issued[8]], 0.45, 51), observations([issued[8]], 0.45, 52)];
    const two = traceColluders({ zs, cells: null }, issued, key, FALSE_MATCH_BOUND).accused;
    // an estimate that says nothing of the mark (noise) only splits the level three ways
    const three = traceColluders({ zs, cells: null, estimate: observations([], 0, 53) }, issued, key, FALSE_MATCH_BOUND).accused;
    expect(two.map((a) => a.payload)).toEqual([issued[8]]);
    expect(three.map((a) => a.payload)).toEqual([issued[8]]);
    expect(three[0].z).toBeLessThan(two[0].z);
    expect(two[0].z - three[0].z).toBeLessThan(0.1);
  });
});

describe('candidate tracing: the regions no accused mark explains (second phase)', () => {
  it('names the colluders who supplied 3 and 1 of 16 tiles of a splice, which the whole-picture rounds miss', () => {
    // cell observations of a 640 x 640 picture spliced from three copies by a 4 x 4 grid of tiles
    const owners = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2];
    const colluders = [issued[7], issued[70], issued[140]];
    const codes = colluders.map((p) => codeSigns(p, key));
    const layers = buildLayers(key, gridDims(640, 640));
    const r = rng(5);
    const cells: TraceCells = { layers, amps: [], e: [], v: [] };
    const zs = layers.map((layer) => {
      const { nx, ny, chip, bit } = layer;
      const e = new Float32Array(nx * ny);
      const soft = new Float64Array(CODED_BITS);
      const count = new Float64Array(CODED_BITS);
      for (let y = 0; y < ny; y++) {
        for (let x = 0; x < nx; x++) {
          const c = y * nx + x;
          const owner = owners[Math.floor((y * 4) / ny) * 4 + Math.floor((x * 4) / nx)];
          e[c] = chip[c] * codes[owner][bit[c]] * 0.3 + r.n();
          soft[bit[c]] += chip[c] * e[c];
          count[bit[c]] += 1;
        }
      }
      cells.amps.push(new Float32Array(nx * ny).fill(1));
      cells.e.push(e);
      cells.v.push(new Float32Array(nx * ny).fill(1));
      return soft.map((x, i) => x / Math.sqrt(count[i]));
    });
    const whole = traceColluders({ zs, cells: null }, issued, key, FALSE_MATCH_BOUND);
    expect(whole.accused.map((a) => a.payload)).toEqual([colluders[0]]);
    const both = traceColluders({ zs, cells }, issued, key, FALSE_MATCH_BOUND);
    expect(new Set(both.accused.map((a) => a.payload))).toEqual(new Set(colluders));
    expect(both.mixing).toBe('region-splicing');
    for (const a of both.accused) expect(a.bound).toBeLessThanOrEqual(FALSE_MATCH_BOUND);
  });
});

/** A 320 x 320 textured test picture: smooth gradients, a few discs and seeded noise (no corpus). */
async function syntheticPhoto(): Promise<Buffer> {
  const w = 320;
  const h = 320;
  const r = rng(9);
  const px = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const base = 110 + 50 * Math.sin(x / 23) * Math.cos(y / 31) + 30 * Math.sin((x + y) / 11);
      const disc = (x - 200) ** 2 + (y - 120) ** 2 < 2500 ? 40 : 0;
      for (let c = 0; c < 3; c++) px[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(base + disc + 12 * r.n() + c * 10)));
    }
  }
  return sharp(px, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

describe('candidate tracing in extractImage', () => {
  let orig: Buffer;
  let copies: { data: Buffer; info: OutputInfo }[];
  const candidates = issued.slice(0, 50);
  beforeAll(async () => {
    orig = await syntheticPhoto();
    copies = await Promise.all(
      [candidates[2], candidates[9], candidates[30]].map(async (p) => sharp((await embedImage(orig, p, { key })).data).raw().toBuffer({ resolveWithObject: true })),
    );
  });
  const png = (px: Buffer, info: OutputInfo): Promise<Buffer> => sharp(px, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();

  it('two copies spliced by halves: both named, the mixing found is splicing by region', async () => {
    const { info } = copies[0];
    const out = Buffer.from(copies[0].data);
    for (let y = 0; y < info.height; y++) {
      const o = y * info.width * 3;
      copies[1].data.copy(out, o + (info.width / 2) * 3, o + (info.width / 2) * 3, o + info.width * 3);
    }
    const res = await extractImage(await png(out, info), orig, { key, candidates });
    expect(res.status).toBe('detected');
    expect(res.payload).toBeUndefined();
    expect(new Set(res.trace?.accused.map((a) => a.payload))).toEqual(new Set([candidates[2], candidates[9]]));
    expect(res.trace?.mixing).toBe('region-splicing');
  });

  it("a single recipient's copy: that payload, as without candidates", async () => {
    const single = await png(copies[0].data, copies[0].info);
    const res = await extractImage(single, orig, { key, candidates });
    expect([res.status, res.payload]).toEqual(['detected', candidates[2]]);
    expect(res.trace?.accused.map((a) => a.payload)).toEqual([candidates[2]]);
  });

  it('the unmarked original accuses nobody', async () => {
    const res = await extractImage(orig, orig, { key, candidates });
    expect(res.status).not.toBe('detected');
    expect(res.trace?.accused).toEqual([]);
    expect(res.trace?.candidatesTested).toBe(50);
  });
});

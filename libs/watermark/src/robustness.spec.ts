import sharp from 'sharp';
import { embedImage, extractImage, issuedPayload } from './index';
import { centreCrop, keystone, rotateCrop, sepiaVignette, vignetteAfterResize } from './testing/edits';
import { astronautPng, coffeeJpg, skyJpeg, textPng } from './testing/fixtures';
const key = { secret: 'robust-spec', version: 'v3' as const };
const id = 0x8badf00ddeadc0den;

// A hang guard, not a speed check (speed is tools/bench-watermark's): the copies that register under 0.95 NCC run every
// search (features, the sweep over the circle, the flattened template search), 5–20 s each on a 2-core machine whose
// cores other suites share; one exceeded the default 60 s in a fresh-clone run beside the full benchmark.
jest.setTimeout(240_000);

type Attack = (b: Buffer, w: number, h: number) => Promise<Buffer>;

const ATTACKS: [string, Attack][] = [
  ['jpeg 50', (b) => sharp(b).jpeg({ quality: 50 }).toBuffer()],
  ['resize 50%', (b, w, h) => sharp(b).resize(Math.round(w / 2), Math.round(h / 2), { fit: 'fill' }).png().toBuffer()],
  [
    'crop 10% area',
    (b, w, h) => {
      const cw = Math.round(w * Math.sqrt(0.1));
      const ch = Math.round(h * Math.sqrt(0.1));
      return sharp(b).extract({ left: Math.round((w - cw) * 0.7), top: Math.round((h - ch) * 0.3), width: cw, height: ch }).png().toBuffer();
    },
  ],
  [
    'rotate 5 + crop',
    async (b, w, h) => {
      const r = await sharp(b).rotate(5, { background: '#808080' }).toBuffer({ resolveWithObject: true });
      const cw = Math.floor(w * 0.85);
      const ch = Math.floor(h * 0.8);
      return sharp(r.data)
        .extract({ left: Math.floor((r.info.width - cw) / 2), top: Math.floor((r.info.height - ch) / 2), width: cw, height: ch })
        .png()
        .toBuffer();
    },
  ],
  ['blur 2', (b) => sharp(b).blur(2).png().toBuffer()],
];

// issue 16: geometry over the whole similarity group plus mirrors (astronaut only: the slowest cases of the guard)
const GEOMETRY: [string, Attack][] = [
  // any angle onto an expanded canvas, corners filled with an arbitrary colour
  ['rotate 137 expanded, teal fill', (b) => sharp(b).rotate(137, { background: '#2a9d8f' }).png().toBuffer()],
  ['mirror H', (b) => sharp(b).flop().png().toBuffer()],
  // any angle with the borders cropped away (the largest centred rectangle of the original aspect)
  [
    'rotate -44.6, borders cropped',
    (b) => rotateCrop(b, -44.6),
  ],
  // the fill now lies over original content (the crop came first): those pixels must not bend the photometric fits
  [
    'crop 70% area > rotate 200 expanded, blue-grey fill > jpeg 80',
    async (b, w, h) => {
      const cw = Math.round(w * Math.sqrt(0.7));
      const ch = Math.round(h * Math.sqrt(0.7));
      const cropped = await sharp(b).extract({ left: w - cw, top: Math.round((h - ch) / 3), width: cw, height: ch }).png().toBuffer();
      return sharp(cropped).rotate(200, { background: '#474ad1' }).jpeg({ quality: 80 }).toBuffer();
    },
  ],
  [
    'chain: scale 70% > mirror V > rotate 250 > crop > jpeg 75 > contrast +40%',
    async (b, w, h) => {
      const scaled = await sharp(b).resize(Math.round(w * 0.7), Math.round(h * 0.7), { fit: 'fill' }).flip().rotate(250, { background: '#ffffff' }).toBuffer({ resolveWithObject: true });
      const { width, height } = scaled.info;
      const cropped = await sharp(scaled.data).extract({ left: Math.round(width * 0.1), top: Math.round(height * 0.05), width: Math.round(width * 0.8), height: Math.round(height * 0.85) }).jpeg({ quality: 75 }).toBuffer();
      return sharp(cropped).linear(1.4, -0.4 * 128).png().toBuffer();
    },
  ],
];

/** The benchmark's low-key grade: exposure down 1.5 stops, then a steep gamma (a fifth of the pixels at 0). */
const lowKeyGrade = (orig: Buffer): Promise<Buffer> => sharp(orig).linear(0.35, 0).gamma(2.2, 1).png().toBuffer();

// one photo and one text scan, each embedded once
const PHOTOS = ['astronaut.png', 'text.png'];
const marked = new Map<string, { orig: Buffer; data: Buffer; w: number; h: number }>();

beforeAll(async () => {
  for (const p of PHOTOS) {
    const orig = p === 'text.png' ? textPng() : await astronautPng();
    const out = await embedImage(orig, id, { key });
    marked.set(p, { orig, data: out.data, w: out.width, h: out.height });
  }
});

describe('robustness regression guard (registered extraction)', () => {
  const cases = PHOTOS.flatMap((p) => ATTACKS.map(([name, attack]) => [p, name, attack] as const));
  it.each(cases)('%s, %s: exact payload with the original', async (photo, _name, attack) => {
    const m = marked.get(photo);
    if (!m) throw new Error(`not embedded: ${photo}`);
    const res = await extractImage(await attack(m.data, m.w, m.h), m.orig, { key });
    expect(res.status).toBe('detected');
    expect(res.payload).toBe(id);
    expect(res.method).toBe('registered');
  });
});

describe('geometry regression guard (rotation, mirror, chain; registered)', () => {
  it.each(GEOMETRY)('astronaut, %s: exact payload with the original, and the transform found', async (name, attack) => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const res = await extractImage(await attack(m.data, m.w, m.h), m.orig, { key });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
    // the evidence names the edit that was found (sharp turns clockwise; the evidence counts counter-clockwise)
    const t = res.evidence?.transform;
    if (name.startsWith('rotate 137')) expect([t?.mirrored, Math.abs((t?.rotationDeg ?? 0) + 137) < 1.5, t?.originalAreaVisible]).toEqual([false, true, 1]);
    if (name === 'mirror H') expect([t?.mirrored, t?.rotationDeg, t?.scale]).toEqual([true, 0, 1]);
    if (name.startsWith('rotate -44.6')) expect([t?.mirrored, Math.abs((t?.rotationDeg ?? 0) - 44.6) < 1, Math.abs((t?.scale ?? 0) - 1) < 0.02]).toEqual([false, true, true]);
    if (name.startsWith('chain')) expect([t?.mirrored, Math.abs((t?.scale ?? 0) - 0.7) < 0.03]).toEqual([true, true]);
    expect(res.evidence).toMatchObject({ payloadBits: 64, checkBits: 40, checkBitsMatched: 40, codedBits: 330 });
    expect(res.evidence?.chanceBound).toBeLessThan(1e-9);
  });

  // issue 16, third pass: contrast clips R, G and B separately (a per-channel tone curve and the mark's local gain);
  // with a luma curve alone this case was not detected (soft agreement 0.53 / 0.54)
  it('astronaut, contrast +60% > crop 76% > mirror V > scale 0.575 > jpeg 66: exact payload with the original', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const { data, info } = await sharp(m.data).raw().toBuffer({ resolveWithObject: true });
    for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(128 + (data[i] - 128) * 1.6)));
    const cw = Math.round(m.w * Math.sqrt(0.76));
    const ch = Math.round(m.h * Math.sqrt(0.76));
    const cropped = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .extract({ left: Math.round((m.w - cw) * 0.3), top: Math.round((m.h - ch) * 0.6), width: cw, height: ch })
      .flip()
      .png()
      .toBuffer();
    const attacked = await sharp(cropped).resize(Math.round(cw * 0.575), Math.round(ch * 0.575), { fit: 'fill' }).jpeg({ quality: 66 }).toBuffer();
    const res = await extractImage(attacked, m.orig, { key });
    expect([res.status, res.payload, res.method, res.evidence?.transform?.mirrored]).toEqual(['detected', id, 'registered', true]);
  });

  // issue 34, fourth pass: on a dark picture the white canvas around a rotated copy dominated the coarse template,
  // and with the crop off-centre it fell outside the original wherever the template was placed (registration NCC
  // 0.54, not detected); the search now runs again with the fill left out of the template
  it('a night grade of the astronaut, mirror > rotate 58 on white > scale 0.63 > crop 68% off centre > jpeg 83: exact payload with the original', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const night = await sharp(m.orig).linear(0.1, 2).png().toBuffer();
    const nightMarked = (await embedImage(night, id, { key })).data;
    const rot = await sharp(nightMarked).flop().rotate(58, { background: '#ffffff' }).toBuffer({ resolveWithObject: true });
    const w = Math.round(rot.info.width * 0.63);
    const h = Math.round(rot.info.height * 0.63);
    const scaled = await sharp(rot.data).resize(w, h, { fit: 'fill' }).png().toBuffer();
    const cw = Math.round(w * Math.sqrt(0.68));
    const ch = Math.round(h * Math.sqrt(0.68));
    const attacked = await sharp(scaled).extract({ left: Math.floor((w - cw) * 0.72), top: Math.floor((h - ch) * 0.34), width: cw, height: ch }).jpeg({ quality: 83 }).toBuffer();
    const res = await extractImage(attacked, night, { key });
    expect([res.status, res.payload, res.method, res.evidence?.transform?.mirrored]).toEqual(['detected', id, 'registered', true]);
  });

  it('a rotated and mirrored unmarked copy is not detected', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    // at 256 px: a copy that matches nothing runs every registration and blind pass (the slowest extraction)
    const small = await sharp(m.orig).resize(256).png().toBuffer();
    const unmarked = await sharp(small).flop().rotate(63, { background: '#000000' }).png().toBuffer();
    expect((await extractImage(unmarked, small, { key })).status).toBe('not_detected');
  });
});

// issue 34: each failed on the extractor before (not detected), with these soft agreements of the registered decoding
const ISSUE_34: [string, Attack][] = [
  // registration: the affine fit left the far edge pixels off; wider projective passes (was 0.963 NCC, not detected)
  ['keystone 15% (bottom edge), scaled to 35%, jpeg 70', async (b, w) => sharp(await keystone(b, 0.15, 2)).resize(Math.round(w * 0.35)).jpeg({ quality: 70 }).toBuffer()],
  // 77 x 77 px: a wrong linear part (scale 0.93, shear 3 %) scored the same NCC as the right one
  ['centre crop 1.5% area, 2% off centre', (b) => centreCrop(b, 0.015, -0.02, -0.01)],
  // a dark vignette (corners at 40 %): the global LUT left the picture in the residual (agreement 0.10 / 0.17)
  ['vignette 0.6 + jpeg 40', async (b) => sharp(await sepiaVignette(b, 0.6, false)).jpeg({ quality: 40 }).toBuffer()],
  // eighth pass: resized before the vignette, JPEG 60 after; LUT and gain field fitted only twice, the field by blocks,
  // left much of the vignette in the residual (agreement 0.30 / 0.36 and 0.51 / 0.50, not detected)
  ['resize 60% > vignette 0.9 > jpeg 60', (b) => vignetteAfterResize(b, 0.6, 0.9, false)],
  ['resize 60% > sepia + vignette 0.6 > jpeg 60', (b) => vignetteAfterResize(b, 0.6, 0.6, true)],
  // fourth pass: 92 x 92 px at scale 0.4, which no size-ratio guess makes (the crop shrinks the copy again); the scale
  // sweep left the unturned orientation out (registration NCC 0.58, not detected)
  [
    'resize 40% > jpeg 40 > crop 20% area (a strong two-step)',
    async (b, w, h) => {
      const sw = Math.round(w * 0.4);
      const sh = Math.round(h * 0.4);
      const small = await sharp(b).resize(sw, sh, { fit: 'fill' }).jpeg({ quality: 40 }).toBuffer();
      const cw = Math.round(sw * Math.sqrt(0.2));
      const ch = Math.round(sh * Math.sqrt(0.2));
      return sharp(small).extract({ left: Math.floor((sw - cw) * 0.3), top: Math.floor((sh - ch) * 0.6), width: cw, height: ch }).png().toBuffer();
    },
  ],
];

describe('issue 34 regression guard (keystone, tiny crop, vignette; registered)', () => {
  it.each(ISSUE_34)('astronaut, %s: exact payload with the original', async (_name, attack) => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const res = await extractImage(await attack(m.data, m.w, m.h), m.orig, { key });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
  });

  // fourth pass: a 2 % crop of a clear sky (113 x 71 px of faint clouds): the unturned candidate refined to a worse NCC
  // than a turned one before the polish, which only the kept one got (registration 0.931, not detected)
  it('a generated clear sky, a 2% crop from the centre: exact payload with the original', async () => {
    const sky = await skyJpeg();
    const skyMarked = (await embedImage(sky, id, { key })).data;
    const res = await extractImage(await centreCrop(skyMarked, 0.02), sky, { key });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
  });

  // ninth pass: a text scan under a strong vignette (corners at 10 %) after a resize; the global alignment NCC
  // preferred a geometry at another scale (text lines matched other lines) and nothing was decoded
  it('the text scan, resize 50% > sepia + vignette 0.9 > jpeg 60: exact payload with the original', async () => {
    const text = textPng();
    const res = await extractImage(await vignetteAfterResize((await embedImage(text, id, { key })).data, 0.5, 0.9, true), text, { key });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
  });

  // a low-key grade (a fifth of the pixels at 0): the pixels at 0 in both the original and a lossless copy show the
  // clipped half of the mark; they were left out as saturated, and these two 3 % crops (89 px) were not detected
  it('a low-key grade of the astronaut, two 3% crops saved as PNG: exact payload with the original', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const lowKey = await lowKeyGrade(m.orig);
    const marked34 = (await embedImage(lowKey, id, { key })).data;
    for (const [dx, dy] of [[0, 0], [0.2, 0.2]]) {
      const res = await extractImage(await centreCrop(marked34, 0.03, dx, dy), lowKey, { key });
      expect([dx, dy, res.status, res.payload, res.method]).toEqual([dx, dy, 'detected', id, 'registered']);
    }
  });
});

describe('issue 34 regression guard, sixth pass (a dark copy registered under 0.6 NCC, a plain crop)', () => {
  // the registration of this dark copy is right (the mark decodes there); its alignment NCC was 0.57, and until the
  // sixth pass nothing under 0.6 was decoded (the blind decoding does not find it either: not detected). Since the
  // seventh pass the white fill's blended edge is left out of the alignment score, and it registers at 0.87.
  it('a low-key grade of the astronaut, mirror V > crop 75% > contrast +40% > scale 0.72 > rotate 344 on white: exact payload with the original', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const lowKey = await lowKeyGrade(m.orig);
    const flipped = await sharp((await embedImage(lowKey, id, { key })).data).flip().png().toBuffer();
    const cw = Math.round(m.w * Math.sqrt(0.754));
    const ch = Math.round(m.h * Math.sqrt(0.754));
    // one sharp pipeline per edit: sharp orders the operations of a pipeline its own way
    const cropped = await sharp(flipped).extract({ left: Math.floor(0.1086 * (m.w - cw + 1)), top: Math.floor(0.1181 * (m.h - ch + 1)), width: cw, height: ch }).png().toBuffer();
    const contrast = await sharp(cropped).linear(1.4, -0.4 * 128).png().toBuffer();
    const scaled = await sharp(contrast).resize(Math.round(cw * 0.7248), Math.round(ch * 0.7248), { fit: 'fill' }).png().toBuffer();
    const rotated = await sharp(await sharp(scaled).ensureAlpha().rotate(344.3, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer())
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();
    const res = await extractImage(rotated, lowKey, { key });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
  });

  // a crop of an unresized copy is a translation; the template search's block matching settled on a linear part a
  // little off (not detected), the crop searched as such is exact
  it('coffee, a 3% crop 4% right of and below the centre, saved as PNG: exact payload with the original', async () => {
    const coffee = coffeeJpg();
    const res = await extractImage(await centreCrop((await embedImage(coffee, id, { key })).data, 0.03, 0.04, 0.04), coffee, { key });
    expect([res.status, res.payload, res.method, res.evidence?.transform?.scale]).toEqual(['detected', id, 'registered', 1]);
  });
});

describe('issue 34 regression guard, seventh pass (the edge of a fill around a dark copy)', () => {
  // A rotation on white, then a resize: the fill's edge is a blend outside the fill's tolerance, and along the frame,
  // where the wedge of fill narrows below a pixel, it is connected to no corner. On a dark picture those pixels held
  // most of the copy's variance, so the right geometry scored 0.44 and a wrong one won (not detected); left out of
  // the alignment score, the right geometry scores 0.99.
  it('a night grade of the coffee photo, crop 50% > JPEG 70 > contrast -40% > rotation 2.5 on white > scale 0.6: exact payload with the original', async () => {
    const night = await sharp(coffeeJpg()).linear(0.25, 2).jpeg({ quality: 92 }).toBuffer();
    const m = await embedImage(night, id, { key });
    const cw = Math.round(m.width * Math.sqrt(0.5));
    const ch = Math.round(m.height * Math.sqrt(0.5));
    const cropped = await sharp(m.data).extract({ left: Math.round((m.width - cw) * 0.4), top: Math.round((m.height - ch) * 0.3), width: cw, height: ch }).jpeg({ quality: 70 }).toBuffer();
    const contrast = await sharp(cropped).linear(0.6, 0.4 * 128).png().toBuffer();
    const rotated = await sharp(contrast).rotate(2.5, { background: '#ffffff' }).png().toBuffer();
    const r = await sharp(rotated).metadata();
    const scaled = await sharp(rotated).resize(Math.round((r.width ?? 0) * 0.6), Math.round((r.height ?? 0) * 0.6), { fit: 'fill' }).png().toBuffer();
    const res = await extractImage(scaled, night, { key, diagnostics: true });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
    expect(res.diagnostics?.registration?.ncc).toBeGreaterThan(0.9);
  });
});

describe('issue 34 regression guard, seventh pass (a keystone of smooth content)', () => {
  // block matching finds too few textured patches on a generated clear sky: a 10 % keystone settled on an affine
  // 113 px off at a corner (NCC 0.81, not detected); the corners climbed on the alignment score reach the true
  // geometry (0.946)
  it('a generated sky, keystone 10% (top edge), JPEG 85: exact payload with the original', async () => {
    const sky = await skyJpeg();
    const copy = await sharp(await keystone((await embedImage(sky, id, { key })).data, 0.1, 0)).jpeg({ quality: 85 }).toBuffer();
    const res = await extractImage(copy, sky, { key, diagnostics: true });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
    expect(res.diagnostics?.registration?.ncc).toBeGreaterThan(0.9);
  });
});

// the benchmark's derived black frame (the coffee photo at 300 x 200 on 1200 x 800 of near black), with the
// benchmark's key and the payload of its copies that the guards below replay
const benchKey = { secret: 'bench-secret', version: 'v3' as const };
const benchId = 0xf0380263f2d5c1aan;
async function blackFrame(): Promise<Buffer> {
  const subject = await sharp(coffeeJpg()).resize(300, 200).toBuffer();
  return sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: 6, g: 6, b: 8 } } })
    .composite([{ input: subject, left: 450, top: 300 }])
    .png()
    .toBuffer();
}

describe('issue 34 regression guard, eleventh pass (a flat area\'s photometric bias; the tone curve judged with its LUT)', () => {
  // A chain of 5 of the benchmark on a black frame around a small subject (scale 0.764 > flip > crop 66 % > contrast
  // -40 % > JPEG 66): registered within a pixel, but the luma LUT's bin for the frame also held some of the subject's
  // edge pixels and left a bias of -0.8 levels over the whole frame, which added to every cell (decoded at 0.49 / 0.42,
  // not detected); with the residual's local mean taken off, 0.96 / 1.00.
  // (with the benchmark's key and that copy's payload: with this file's, the copy decoded at 0.83 before the change)
  it('the coffee photo small in a black frame, scale 0.764 > flip > crop 66% > contrast -40% > JPEG 66: exact payload with the original', async () => {
    const frame = await blackFrame();
    const m = await embedImage(frame, benchId, { key: benchKey });
    const w = Math.round(1200 * 0.76438);
    const h = Math.round(800 * 0.76438);
    const scaled = await sharp(m.data).resize(w, h, { fit: 'fill' }).png().toBuffer();
    const flipped = await sharp(scaled).flip().png().toBuffer();
    const cw = Math.round(w * Math.sqrt(0.66464));
    const ch = Math.round(h * Math.sqrt(0.66464));
    const cropped = await sharp(flipped).extract({ left: Math.floor(0.2652 * (w - cw + 1)), top: Math.floor(0.82813 * (h - ch + 1)), width: cw, height: ch }).png().toBuffer();
    // the contrast step rounded per channel as the benchmark's point operation does (sharp's linear() rounds otherwise)
    const raw = await sharp(cropped).raw().toBuffer({ resolveWithObject: true });
    for (let i = 0; i < raw.data.length; i++) raw.data[i] = Math.max(0, Math.min(255, Math.round(128 + (raw.data[i] - 128) * 0.6)));
    const copy = await sharp(raw.data, { raw: { width: raw.info.width, height: raw.info.height, channels: raw.info.channels } }).jpeg({ quality: 66 }).toBuffer();
    const res = await extractImage(copy, frame, { key: benchKey });
    expect([res.status, res.payload, res.method]).toEqual(['detected', benchId, 'registered']);
  });

  // The benchmark's low-key chain of 5 (crop 78 % > scale 0.805 > contrast +40 % > JPEG 73 > rotation 125.6 on
  // white): registered within 0.2 px, but the per-channel tone curve predicted the luma worse than the luma LUT (22.7
  // against 16.7 levels²) and was dropped with the mark's local gain (0.50 / 0.54, not detected). Followed by a LUT of
  // its own, as registered decoding uses it, the curve is the better fit (11.3) and the copy decodes (0.85 / 0.92).
  it('a low-key grade of the astronaut, crop 78% > scale 0.805 > contrast +40% > JPEG 73 > rotate 125.6 on white: exact payload with the original', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const lowKey = await lowKeyGrade(m.orig);
    const marked2 = (await embedImage(lowKey, id, { key })).data;
    const cw = Math.round(m.w * Math.sqrt(0.778));
    const ch = Math.round(m.h * Math.sqrt(0.778));
    const cropped = await sharp(marked2).extract({ left: Math.floor(0.83572 * (m.w - cw + 1)), top: Math.floor(0.22941 * (m.h - ch + 1)), width: cw, height: ch }).png().toBuffer();
    const scaled = await sharp(cropped).resize(Math.round(cw * 0.80523), Math.round(ch * 0.80523), { fit: 'fill' }).png().toBuffer();
    const contrast = await sharp(scaled).linear(1.4, -0.4 * 128).png().toBuffer();
    const jpeg = await sharp(contrast).jpeg({ quality: 73 }).toBuffer();
    const rotated = await sharp(await sharp(jpeg).ensureAlpha().rotate(125.64, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer())
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer();
    const res = await extractImage(rotated, lowKey, { key });
    expect([res.status, res.payload, res.method]).toEqual(['detected', id, 'registered']);
  });
});

describe('issue 34 regression guard, twelfth pass (a crop that shows none of the picture, placed on the mark)', () => {
  // The benchmark's strong two-step on the black frame that cut only near-black frame (two crops, 263 x 175 px at
  // (309, 93), lossless): the image registration had nothing to align (NCC 0.22, 545 px off) and the copy was not
  // detected, although its mark reads 294 of 330 coded bits at the true place. Searched on the mark (mark-placement.ts),
  // it is placed within a pixel and decodes.
  it('a 263 x 175 crop of the black frame\'s flat part: placed on the mark, exact payload with the original', async () => {
    const frame = await blackFrame();
    const m = await embedImage(frame, benchId, { key: benchKey });
    const copy = await sharp(m.data).extract({ left: 309, top: 93, width: 263, height: 175 }).png().toBuffer();
    const res = await extractImage(copy, frame, { key: benchKey, diagnostics: true });
    expect([res.status, res.payload, res.method]).toEqual(['detected', benchId, 'registered']);
    expect(res.diagnostics?.registration?.placedOnMark).toBe(true);
    // the same crop of the unmarked frame is placed nowhere and not detected
    const plain = await sharp(frame).extract({ left: 309, top: 93, width: 263, height: 175 }).png().toBuffer();
    const none = await extractImage(plain, frame, { key: benchKey, diagnostics: true });
    expect(none.status).not.toBe('detected');
    expect(none.diagnostics?.registration?.placedOnMark ?? false).toBe(false);
  });
});

// issue 36: three recipients' copies averaged (+ JPEG 80). The extractor before it named at most one recipient
// (the blind and registered decodings look for one payload); candidate tracing must name all three, no innocent.
describe('issue 36 regression guard (colluders; registered, with candidates)', () => {
  it('astronaut, three copies averaged + jpeg 80: all three named, none of 47 innocents', async () => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    const issued = Array.from({ length: 50 }, (_, i) => issuedPayload(BigInt(7001 + i)));
    const colluders = [issued[3], issued[17], issued[41]];
    const copies = await Promise.all(colluders.map(async (p) => sharp((await embedImage(m.orig, p, { key })).data).raw().toBuffer({ resolveWithObject: true })));
    const { info } = copies[0];
    const mean = Buffer.alloc(copies[0].data.length);
    for (let i = 0; i < mean.length; i++) mean[i] = Math.round((copies[0].data[i] + copies[1].data[i] + copies[2].data[i]) / 3);
    const averaged = await sharp(mean, { raw: { width: info.width, height: info.height, channels: info.channels } }).jpeg({ quality: 80 }).toBuffer();
    const res = await extractImage(averaged, m.orig, { key, candidates: issued });
    const accused = (res.trace?.accused ?? []).map((a) => a.payload);
    expect([res.status, res.payload, res.method]).toEqual(['detected', undefined, 'registered']);
    expect(new Set(accused)).toEqual(new Set(colluders));
    expect(res.evidence?.colluders?.candidatesTested).toBe(50);
    expect(res.evidence?.colluders?.mixing).toBe('averaging');
    for (const a of res.trace?.accused ?? []) expect(a.bound).toBeLessThanOrEqual(res.evidence?.chanceBound ?? 0);
  });
});

describe('detection rules', () => {
  const astro = (): { orig: Buffer; data: Buffer } => {
    const m = marked.get('astronaut.png');
    if (!m) throw new Error('not embedded');
    return m;
  };

  it('blind: unedited marked photo', async () => {
    const res = await extractImage(astro().data, null, { key });
    expect(res.status).toBe('detected');
    expect(res.payload).toBe(id);
    expect(res.method).toBe('blind');
  });

  it('blind: text scan, unedited and after JPEG 50 (edge-weighted cell means)', async () => {
    const m = marked.get('text.png');
    if (!m) throw new Error('not embedded');
    for (const img of [m.data, await sharp(m.data).jpeg({ quality: 50 }).toBuffer()]) {
      const res = await extractImage(img, null, { key });
      expect(res.status).toBe('detected');
      expect(res.payload).toBe(id);
      expect(res.method).toBe('blind');
    }
  });

  it('unmarked images are never detected (blind and registered)', async () => {
    const { orig } = astro();
    expect((await extractImage(orig, null, { key })).status).not.toBe('detected');
    expect((await extractImage(orig, orig, { key })).status).not.toBe('detected');
    const text = textPng();
    expect((await extractImage(text, text, { key })).status).not.toBe('detected');
  });

  it('v3 extraction never detects a v2 mark or another key; v2 still reads its own mark', async () => {
    const { orig } = astro();
    const v2 = (await embedImage(orig, id, { key: { secret: 'robust-spec', version: 'v2' } })).data;
    expect((await extractImage(v2, orig, { key })).status).not.toBe('detected');
    expect((await extractImage(v2, null, { key })).status).not.toBe('detected');
    const other = (await embedImage(orig, id, { key: { secret: 'someone-else', version: 'v3' } })).data;
    expect((await extractImage(other, null, { key })).status).not.toBe('detected');
    const own = await extractImage(v2, orig, { key: { secret: 'robust-spec', version: 'v2' } });
    expect(own.status).toBe('detected');
    expect(own.payload).toBe(id);
  });

  it('PSNR of the mark stays above 40 dB (photo and text scan)', async () => {
    for (const p of PHOTOS) {
      const m = marked.get(p);
      if (!m) throw new Error(`not embedded: ${p}`);
      const a = await sharp(m.orig).raw().toBuffer();
      const b = await sharp(m.data).raw().toBuffer();
      let mse = 0;
      for (let i = 0; i < a.length; i++) mse += (a[i] - b[i]) ** 2;
      expect(10 * Math.log10((255 * 255) / (mse / a.length))).toBeGreaterThan(40);
    }
  });
});

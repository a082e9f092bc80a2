import sharp from 'sharp';

/**
 * Rotation by `deg` with the borders cropped away: the largest centred rectangle of the original aspect inside the
 * rotated image (an editor's "straighten"). Shared by the benchmark's attacks and the fast regression guard.
 */
export async function rotateCrop(img: Buffer, deg: number): Promise<Buffer> {
  const meta = await sharp(img).metadata();
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  const rot = await sharp(img).rotate(deg, { background: '#808080' }).toBuffer({ resolveWithObject: true });
  const a = (Math.abs(deg) * Math.PI) / 180;
  const s = Math.min(w / (w * Math.cos(a) + h * Math.sin(a)), h / (w * Math.sin(a) + h * Math.cos(a)));
  const cw = Math.floor(w * s) - 2;
  const ch = Math.floor(h * s) - 2;
  return sharp(rot.data)
    .extract({ left: Math.floor((rot.info.width - cw) / 2), top: Math.floor((rot.info.height - ch) / 2), width: cw, height: ch })
    .png()
    .toBuffer();
}

type Point = [number, number];

/** The homography mapping each of the 4 points `from` onto `to` (direct linear transform, 8x8 Gauss-Jordan). */
function quadHomography(from: Point[], to: Point[]): number[] {
  const A: number[][] = [];
  const b: number[] = [];
  for (let k = 0; k < 4; k++) {
    const [x, y] = from[k];
    const [u, v] = to[k];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  for (let i = 0; i < 8; i++) {
    let p = i;
    for (let r = i + 1; r < 8; r++) if (Math.abs(A[r][i]) > Math.abs(A[p][i])) p = r;
    [A[i], A[p]] = [A[p], A[i]];
    [b[i], b[p]] = [b[p], b[i]];
    for (let r = 0; r < 8; r++) {
      if (r === i) continue;
      const f = A[r][i] / A[i][i];
      for (let j = i; j < 8; j++) A[r][j] -= f * A[i][j];
      b[r] -= f * b[i];
    }
  }
  return b.map((v, i) => v / A[i][i]);
}

/**
 * Projective warp: the image's corners (top-left, top-right, bottom-right, bottom-left) land on `corners` of an
 * outW x outH canvas filled with `fill` (0..255, every channel) outside the picture; bilinear sampling.
 */
export async function warpCorners(img: Buffer, corners: Point[], fill: number, outW?: number, outH?: number): Promise<Buffer> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  const ow = outW ?? w;
  const oh = outH ?? h;
  const H = quadHomography(corners, [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]);
  const out = Buffer.alloc(ow * oh * c, fill);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      const z = H[6] * x + H[7] * y + 1;
      const u = (H[0] * x + H[1] * y + H[2]) / z;
      const v = (H[3] * x + H[4] * y + H[5]) / z;
      if (u < 0 || v < 0 || u > w - 1 || v > h - 1) continue;
      const x0 = Math.min(w - 2, Math.floor(u));
      const y0 = Math.min(h - 2, Math.floor(v));
      const fx = u - x0;
      const fy = v - y0;
      for (let ch = 0; ch < c; ch++) {
        const i = (y0 * w + x0) * c + ch;
        const top = data[i] + (data[i + c] - data[i]) * fx;
        const bot = data[i + w * c] + (data[i + w * c + c] - data[i + w * c]) * fx;
        out[(y * ow + x) * c + ch] = Math.round(top + (bot - top) * fy);
      }
    }
  }
  return sharp(out, { raw: { width: ow, height: oh, channels: c } }).png().toBuffer();
}

/**
 * A keystoned view, as a phone photographing a screen at an angle sees it: one edge of the picture shortened by
 * `k` of its length on each side (side 0..3 = top, right, bottom, left), a 3 % black margin, black around.
 */
export async function keystone(img: Buffer, k: number, side: number): Promise<Buffer> {
  const meta = await sharp(img).metadata();
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  const m = 0.03;
  // the picture's corners in a frame of unit square, then the shortened edge
  const q: Point[] = [[m, m], [1 - m, m], [1 - m, 1 - m], [m, 1 - m]];
  const s = (1 - 2 * m) * k;
  // the two corners of the shortened edge move towards each other along it
  const [a, b, axis, sign] = ([[0, 1, 0, 1], [1, 2, 1, 1], [3, 2, 0, 1], [0, 3, 1, 1]] as const)[side];
  q[a][axis] += sign * s;
  q[b][axis] -= sign * s;
  return warpCorners(img, q.map(([x, y]) => [x * (w - 1), y * (h - 1)] as Point), 0);
}

/** A crop keeping `area` of the picture around its centre, moved by up to `jitter` of the size. */
export async function centreCrop(img: Buffer, area: number, dx = 0, dy = 0): Promise<Buffer> {
  const meta = await sharp(img).metadata();
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  const cw = Math.max(8, Math.round(w * Math.sqrt(area)));
  const ch = Math.max(8, Math.round(h * Math.sqrt(area)));
  const left = Math.max(0, Math.min(w - cw, Math.round((w - cw) / 2 + dx * w)));
  const top = Math.max(0, Math.min(h - ch, Math.round((h - ch) / 2 + dy * h)));
  return sharp(img).extract({ left, top, width: cw, height: ch }).png().toBuffer();
}

/**
 * Strong toning: a sepia colour matrix (unless `sepia` is false), then a dark vignette (gain 1 - v * r^2, r = distance
 * to the centre over the half diagonal), as photo apps' "vintage" filters do.
 */
export async function sepiaVignette(img: Buffer, v: number, sepia = true): Promise<Buffer> {
  const { data, info } = await sharp(img).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  const cx = (w - 1) / 2;
  const cy = (h - 1) / 2;
  const r2max = cx * cx + cy * cy;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * c;
      const r = data[i];
      const g = c >= 3 ? data[i + 1] : r;
      const b = c >= 3 ? data[i + 2] : r;
      const gain = 1 - (v * ((x - cx) ** 2 + (y - cy) ** 2)) / r2max;
      const out = sepia ? [0.393 * r + 0.769 * g + 0.189 * b, 0.349 * r + 0.686 * g + 0.168 * b, 0.272 * r + 0.534 * g + 0.131 * b] : [r, g, b];
      for (let ch = 0; ch < c; ch++) data[i + ch] = Math.max(0, Math.min(255, Math.round(out[ch % 3] * gain)));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: c } }).png().toBuffer();
}

/** A photo filter on a shared copy: resized to `scale` of its width, sepiaVignette(v, sepia), JPEG 60. */
export async function vignetteAfterResize(img: Buffer, scale: number, v: number, sepia: boolean): Promise<Buffer> {
  const m = await sharp(img).metadata();
  const small = await sharp(img).resize(Math.max(16, Math.round((m.width ?? 0) * scale))).png().toBuffer();
  return sharp(await sepiaVignette(small, v, sepia)).jpeg({ quality: 60 }).toBuffer();
}

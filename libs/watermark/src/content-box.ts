/**
 * The picture inside a page or a border (issue 34): a leaked copy pasted at a reduced size into a larger page with a
 * headline, or given a wide border, is an original surrounded by foreign content, like a caption. The template
 * search compares the whole inspected image with the original, so a page that is mostly white drowned the picture
 * (a dark photo pasted at 80 % into a white page: alignment NCC 0.39). The page is found as the canvas reached from
 * the corners (canvasFillRegion, any colour); the picture is the largest connected block of what is left.
 */
import { canvasFillRegion, Plane } from './image';

/** Module-level aliases: inside a vm context (Jest) every global lookup in a hot loop costs ~100x a constant. */
const math = Math;

export interface Box {
  x0: number;
  y0: number;
  w: number;
  h: number;
}

/** Least share of the image the surrounding canvas must cover for a content box to be worth a search. */
const MIN_FILL_SHARE = 0.1;
/** A box covering more than this share of the image gains nothing over the image itself. */
const MAX_BOX_SHARE = 0.85;
/** Pixels left out at each edge of the box (the seam between page and picture). */
const SEAM = 2;

/** Bounding box of the largest connected non-canvas area, or null when there is no surrounding canvas to leave out. */
export function contentBox(I: Plane): Box | null {
  const { w, h } = I;
  const fill = canvasFillRegion(I.d, w, h);
  let filled = 0;
  for (let k = 0; k < fill.length; k++) filled += fill[k];
  if (filled < MIN_FILL_SHARE * w * h) return null;
  // blocks of about 1/160 of the longer side: a block is content when most of its pixels are not canvas
  const B = math.max(1, math.ceil(math.max(w, h) / 160));
  const bx = math.ceil(w / B);
  const by = math.ceil(h / B);
  const count = new Int32Array(bx * by);
  const size = new Int32Array(bx * by);
  for (let y = 0; y < h; y++) {
    const row = math.floor(y / B) * bx;
    for (let x = 0; x < w; x++) {
      const b = row + math.floor(x / B);
      size[b]++;
      if (!fill[y * w + x]) count[b]++;
    }
  }
  const label = new Int32Array(bx * by).fill(-1);
  const queue = new Int32Array(bx * by);
  let best: { label: number; n: number; x0: number; y0: number; x1: number; y1: number } | null = null;
  for (let s = 0; s < bx * by; s++) {
    if (label[s] >= 0 || 2 * count[s] <= size[s]) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    label[s] = s;
    const c = { label: s, n: 0, x0: bx, y0: by, x1: 0, y1: 0 };
    while (head < tail) {
      const k = queue[head++];
      const x = k % bx;
      const y = (k - x) / bx;
      c.n++;
      c.x0 = math.min(c.x0, x);
      c.y0 = math.min(c.y0, y);
      c.x1 = math.max(c.x1, x);
      c.y1 = math.max(c.y1, y);
      for (const [nx, ny] of [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]) {
        if (nx < 0 || ny < 0 || nx >= bx || ny >= by) continue;
        const j = ny * bx + nx;
        if (label[j] >= 0 || 2 * count[j] <= size[j]) continue;
        label[j] = s;
        queue[tail++] = j;
      }
    }
    if (!best || c.n > best.n) best = c;
  }
  if (!best) return null;
  // the exact extent of the non-canvas pixels in the component's blocks, less a seam (JPEG rings at the picture's
  // edge): a strip of bright page left in the box dominated the template of a dark picture (a wrong scale won)
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = best.y0 * B; y < math.min(h, (best.y1 + 1) * B); y++) {
    for (let x = best.x0 * B; x < math.min(w, (best.x1 + 1) * B); x++) {
      if (fill[y * w + x] || label[math.floor(y / B) * bx + math.floor(x / B)] !== best.label) continue;
      x0 = math.min(x0, x);
      y0 = math.min(y0, y);
      x1 = math.max(x1, x);
      y1 = math.max(y1, y);
    }
  }
  x0 += SEAM;
  y0 += SEAM;
  const bw = x1 - SEAM - x0 + 1;
  const bh = y1 - SEAM - y0 + 1;
  if (bw < 16 || bh < 16 || bw * bh > MAX_BOX_SHARE * w * h) return null;
  return { x0, y0, w: bw, h: bh };
}

/** The part of a plane inside a box (a copy). */
export function cropPlane(p: Plane, b: Box): Plane {
  const d = new Float32Array(b.w * b.h);
  for (let y = 0; y < b.h; y++) d.set(p.d.subarray((b.y0 + y) * p.w + b.x0, (b.y0 + y) * p.w + b.x0 + b.w), y * b.w);
  return { w: b.w, h: b.h, d };
}

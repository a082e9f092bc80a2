import { pixelTaps } from './cell-decode';
import { residualBox } from './soft-decode';

describe('residualBox', () => {
  const w = 40;
  const h = 30;
  /** A residual that is NaN outside [x0, x1] x [y0, y1]. */
  function residual(x0: number, y0: number, x1: number, y1: number): Float32Array {
    return Float32Array.from({ length: w * h }, (_, k) => {
      const x = k % w;
      const y = Math.floor(k / w);
      return x >= x0 && x <= x1 && y >= y0 && y <= y1 ? 1 : Number.NaN;
    });
  }

  it('is the box of the pixels with a residual grown by the filter reach (2)', () => {
    expect(residualBox(residual(10, 5, 20, 12), w, h)).toEqual({ x0: 8, y0: 3, w: 15, h: 12 });
  });

  it('stops at the plane border', () => {
    expect(residualBox(residual(1, 0, 39, 28), w, h)).toEqual({ x0: 0, y0: 0, w: 40, h: 30 });
  });

  it('is null when no pixel has a residual', () => {
    expect(residualBox(new Float32Array(w * h).fill(Number.NaN), w, h)).toBeNull();
  });
});

describe('pixelTaps into arrays that hold old data', () => {
  it('writes every entry: no cell and no fraction left from before where a pixel has no residual', () => {
    const n = 500;
    const u = Float32Array.from({ length: n }, (_, k) => (k % 25) / 25);
    const v = Float32Array.from({ length: n }, (_, k) => Math.floor(k / 25) / 20);
    const valid = Uint8Array.from({ length: n }, (_, k) => (k % 3 === 0 ? 0 : 1));
    const fresh = { c: new Int32Array(n), fx: new Float32Array(n), fy: new Float32Array(n) };
    const stale = { c: new Int32Array(n).fill(7), fx: new Float32Array(n).fill(0.3), fy: new Float32Array(n).fill(Number.NaN) };
    pixelTaps(13, 9, u, v, valid, fresh);
    pixelTaps(13, 9, u, v, valid, stale);
    expect(Array.from(stale.c)).toEqual(Array.from(fresh.c));
    expect(Array.from(stale.fx)).toEqual(Array.from(fresh.fx));
    expect(Array.from(stale.fy)).toEqual(Array.from(fresh.fy));
    expect(fresh.c[0]).toBe(-1);
    expect(fresh.c[1]).toBeGreaterThanOrEqual(0);
  });
});

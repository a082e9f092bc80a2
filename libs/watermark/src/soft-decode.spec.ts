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

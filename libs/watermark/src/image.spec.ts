import { subtractLocalMean } from './image';

describe('subtractLocalMean', () => {
  it('takes a constant bias off and keeps a zero-mean pattern, leaving NaN values out of the means', () => {
    const w = 40;
    const h = 30;
    const p = new Float32Array(w * h);
    // +-1 checkerboard on a bias of 5, with a hole of NaN values
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) p[y * w + x] = 5 + ((x + y) % 2 ? 1 : -1);
    for (let y = 10; y < 14; y++) for (let x = 10; x < 14; x++) p[y * w + x] = Number.NaN;
    subtractLocalMean(p, w, h, 3);
    let worst = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const v = p[y * w + x];
        if (y >= 10 && y < 14 && x >= 10 && x < 14) {
          expect(Number.isNaN(v)).toBe(true);
          continue;
        }
        // a 7 x 7 window of the checkerboard averages to within 1/49 (1/n near the hole or the edges) of 0
        worst = Math.max(worst, Math.abs(v - ((x + y) % 2 ? 1 : -1)));
      }
    }
    expect(worst).toBeLessThan(0.2);
  });

  it('follows a bias that changes across the plane (a step between two flat halves)', () => {
    const w = 64;
    const h = 8;
    const p = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) p[y * w + x] = x < w / 2 ? -3 : 4;
    subtractLocalMean(p, w, h, 4);
    // away from the step, nothing is left
    for (let y = 0; y < h; y++) {
      expect(Math.abs(p[y * w + 5])).toBeLessThan(1e-6);
      expect(Math.abs(p[y * w + w - 6])).toBeLessThan(1e-6);
    }
  });
});

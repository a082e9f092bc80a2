/** Mean SSIM of two luma planes over 8x8 windows with stride 4 (as tools/bench-watermark measures it). */
export function ssim(a: Float64Array, b: Float64Array, w: number, h: number): number {
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let sum = 0;
  let n = 0;
  for (let y = 0; y + 8 <= h; y += 4) {
    for (let x = 0; x + 8 <= w; x += 4) {
      let ma = 0;
      let mb = 0;
      for (let j = 0; j < 8; j++) for (let i = 0; i < 8; i++) {
        ma += a[(y + j) * w + x + i];
        mb += b[(y + j) * w + x + i];
      }
      ma /= 64;
      mb /= 64;
      let va = 0;
      let vb = 0;
      let cov = 0;
      for (let j = 0; j < 8; j++) for (let i = 0; i < 8; i++) {
        const k = (y + j) * w + x + i;
        va += (a[k] - ma) ** 2;
        vb += (b[k] - mb) ** 2;
        cov += (a[k] - ma) * (b[k] - mb);
      }
      sum += ((2 * ma * mb + c1) * ((2 * cov) / 63 + c2)) / ((ma * ma + mb * mb + c1) * (va / 63 + vb / 63 + c2));
      n++;
    }
  }
  return sum / n;
}

// AssemblyScript source of the registered decoding's plane kernels: the hot loops over every working pixel that used
// to run in JavaScript. Built by `node tools/wasm/build.mjs` into libs/watermark/src/decode-kernel.wasm.ts; a unit
// test rebuilds it and fails when the committed module differs from this source.
//
// Each does the same operations in the same order as the JavaScript loop it replaced (f64 arithmetic, f32 samples
// widened on load and rounded on store, no fused multiply-add in WebAssembly), so the results are bit for bit the
// same: decode-kernel.spec.ts compares each with that loop.

/** Largest polynomial degree the scratch powers hold. */
const MAX_DEGREE = 8;

/**
 * local-gain.ts's polynomial gain field: accumulates, over every `step`-th sample of every `step`-th row of the w x h planes `W` (registered original) and
 * `I` (inspected), both f32, the normal equations of I ≈ g(u, v) · lut(W): `b[r] += I · phi[r]` and the upper triangle
 * `A[r * m + c] += phi[r] · phi[c]` (c ≥ r), phi[r] = u^ti[r] · v^tj[r] · lut(W), with u = (x − cx) · sc and
 * v = (y − cy) · sc. Samples where W is NaN or I ≥ saturated are left out. `lut` holds `bins` f64 values (tone.ts's
 * lutAt); `ti`, `tj` (i32) the powers of the `m` terms; `scratch` room for 2 · (MAX_DEGREE + 1) + m f64.
 */
export function normalEquations(W: usize, I: usize, w: i32, h: i32, step: i32, lut: usize, bins: i32, cx: f64, cy: f64, sc: f64, degree: i32, ti: usize, tj: usize, m: i32, A: usize, b: usize, saturated: f64, scratch: usize): void {
  const up = scratch;
  const vp = scratch + ((MAX_DEGREE + 1) << 3);
  const phi = vp + ((MAX_DEGREE + 1) << 3);
  const fb = <f64>bins;
  for (let y = 0; y < h; y += step) {
    const v = (<f64>y - cy) * sc;
    store<f64>(vp, 1);
    for (let j = 1; j <= degree; j++) store<f64>(vp + (<usize>j << 3), load<f64>(vp + (<usize>(j - 1) << 3)) * v);
    for (let x = 0; x < w; x += step) {
      const k = <usize>y * <usize>w + <usize>x;
      const wk = <f64>load<f32>(W + (k << 2));
      const ik = <f64>load<f32>(I + (k << 2));
      if (isNaN(wk) || ik >= saturated) continue;
      // tone.ts's lutAt
      const t = (wk / 256) * fb - 0.5;
      const b0 = max<f64>(0, min<f64>(fb - 2, floor(t)));
      const f = max<f64>(0, min<f64>(1, t - b0));
      const l0 = load<f64>(lut + (<usize>b0 << 3));
      const p = l0 + (load<f64>(lut + ((<usize>b0 + 1) << 3)) - l0) * f;
      const u = (<f64>x - cx) * sc;
      store<f64>(up, 1);
      for (let i = 1; i <= degree; i++) store<f64>(up + (<usize>i << 3), load<f64>(up + (<usize>(i - 1) << 3)) * u);
      for (let r = 0; r < m; r++) {
        const pr = load<f64>(up + (<usize>load<i32>(ti + (<usize>r << 2)) << 3)) * load<f64>(vp + (<usize>load<i32>(tj + (<usize>r << 2)) << 3)) * p;
        store<f64>(phi + (<usize>r << 3), pr);
      }
      for (let r = 0; r < m; r++) {
        const pr = load<f64>(phi + (<usize>r << 3));
        const br = b + (<usize>r << 3);
        store<f64>(br, load<f64>(br) + ik * pr);
        const row = A + (<usize>(r * m) << 3);
        for (let c = r; c < m; c++) {
          const a = row + (<usize>c << 3);
          store<f64>(a, load<f64>(a) + pr * load<f64>(phi + (<usize>c << 3)));
        }
      }
    }
  }
}

/**
 * How much a copy's soft values say about the code word (dev probe; replay.ts prints it). For each source of soft
 * values (a layer's z-scores, the joint estimate) a scale turns values into log-likelihood ratios; the sum over the
 * coded bits of 1 - log2(1 + e^(-c L)) (c = +-1 the true coded bit, L the scaled values summed over the sources) is
 * the generalised mutual information of a decoder that trusts those ratios, maximised over the scales on a grid. It
 * needs the true code word, so it is measured, never used by the extractor. A copy whose figure stays well below the
 * 104 information bits of a payload cannot be decoded alone by any code of that length; candidate tracing (one known
 * code word per issued payload) needs far less.
 */

/** Scales tried per source: from "almost ignore" to "trust fully" (z-scores of 1-30). */
const SCALES = [0, 0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 1, 1.3, 1.7, 2.2, 3, 4];

/** log2(1 + e^-x) without overflow for large |x|. */
function softplus2(x: number): number {
  return x > -30 ? Math.log2(1 + Math.exp(-x)) : -x / Math.LN2;
}

/** Bits of information the sources' soft values carry on `coded` (0/1 per coded bit), best over the scales. */
export function informationBits(sources: Float64Array[], coded: Uint8Array): number {
  // each source's values signed by the true bit: positive where it reads the bit right
  const signed = sources.map((z) => Float64Array.from(z.subarray(0, coded.length), (v, i) => (coded[i] ? v : -v)));
  const gmi = (scales: number[]): number => {
    let info = 0;
    for (let i = 0; i < coded.length; i++) {
      let llr = 0;
      for (let s = 0; s < signed.length; s++) llr += scales[s] * signed[s][i];
      info += 1 - softplus2(llr);
    }
    return info;
  };
  let best = 0;
  // every combination of the grid's scales (16^sources: the probe passes one to three sources)
  const scales = new Array<number>(signed.length).fill(0);
  const walk = (s: number): void => {
    if (s === signed.length) {
      best = Math.max(best, gmi(scales));
      return;
    }
    for (const a of SCALES) {
      scales[s] = a;
      walk(s + 1);
    }
  };
  walk(0);
  return best;
}

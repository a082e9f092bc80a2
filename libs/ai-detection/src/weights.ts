/**
 * Log-odds weight of each finding (docs/ai-detection.md: the table, the reason of each, and what it takes to change
 * a result). The spec's `likely_*` bands start at |log-odds| = ln 3 ≈ 1.10, so:
 * - an unsigned claim (IPTC/XMP fields, PNG text chunks, a Software tag, Content Credentials from a signer on no
 *   trust list) weighs UNSIGNED_CLAIM, the same amount towards AI as towards a capture: anyone can write one or
 *   strip one, and nothing measured says one side's claim is more often true; one such source never reaches
 *   `likely_*`, and findings of that one source count once (see `independentEvidence`);
 * - only Content Credentials whose signer c2pa-rs found on the configured trust list, and a generator-specific mark
 *   decoded beyond a stated false-alarm bound, can reach `likely_*` alone;
 * - an uncalibrated classifier never weighs more than UNSIGNED_CLAIM; a calibrated one weighs ln(likelihood ratio)
 *   of its score band (classifier/calibration.ts).
 */
export const UNSIGNED_CLAIM = 0.5;

export const EVIDENCE_WEIGHTS = {
  /** C2PA, signer on the trust list, AI source type: the signer vouches for it; ±3 ≈ 20:1 either way. */
  c2paAiSource: 3,
  /** C2PA, signer on the trust list, composite with AI parts (2 ≈ 7:1: reaches `likely_ai`, verdict "edited with AI"). */
  c2paCompositeAi: 2,
  /** C2PA, signer on the trust list, digital capture: the mirror of the AI claim. */
  c2paCapture: -3,
  /** Unsigned (or unknown-signer) claim of AI generation or AI parts. */
  declaredAi: UNSIGNED_CLAIM,
  /** Unsigned (or unknown-signer) claim of a capture. */
  declaredCapture: -UNSIGNED_CLAIM,
  /**
   * Stable Diffusion invisible mark decoded with a chance probability below 1e-6 after the Bonferroni correction
   * (sd-watermark.ts): the likelihood ratio is at least the detection rate over 1e-6; 4.5 (≈ 90:1) is far below that
   * bound, so a measured false alarm could not be hidden by the weight.
   */
  sdWatermark: 4.5,
} as const;

/** Highest |weight| of a classifier without a calibration file: it can never decide alone. */
export const UNCALIBRATED_CLASSIFIER_MAX = UNSIGNED_CLAIM;

/**
 * Log-odds weight of each finding (docs/ai-detection.md explains each choice). A weight of ln(k) says the finding
 * is k times more likely on the claimed side; signed provenance weighs more than unsigned claims, which anyone
 * can write or strip.
 */
export const EVIDENCE_WEIGHTS = {
  /** Valid C2PA signature with an AI source type. */
  c2paAiSource: 4,
  /** Valid C2PA signature, composite with AI parts. */
  c2paCompositeAi: 2,
  /** Valid C2PA signature declaring a digital capture (camera). */
  c2paCapture: -2.5,
  /** Unsigned IPTC/XMP source type: AI. */
  declaredAiSource: 3,
  /** Unsigned IPTC/XMP source type: composite with AI parts. */
  declaredCompositeAi: 1.5,
  /** Unsigned IPTC/XMP source type: capture (trivially written, hence weak). */
  declaredCapture: -0.5,
  /** Generation parameters (Stable Diffusion web UI `parameters`, ComfyUI `prompt`/`workflow`). */
  generatorParameters: 3,
  /** Software/CreatorTool naming a known image generator. */
  generatorSoftware: 2.5,
  /** Stable Diffusion invisible mark decoded beyond the false-alarm limit. */
  sdWatermark: 4.5,
} as const;

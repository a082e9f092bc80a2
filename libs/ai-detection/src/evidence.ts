/** What one signal found, with its signed contribution to the fused log-odds (positive: towards AI-generated). */
export type SignalId = 'c2pa' | 'metadata' | 'sdWatermark' | 'classifier';

export type EvidenceDirection = 'ai' | 'real' | 'neutral';

export interface Evidence {
  signal: SignalId;
  /** Stable machine code of the finding, e.g. `c2pa.trainedAlgorithmicMedia`, `sdWatermark.notFound`. */
  finding: string;
  /** Plain-language statement of what was found (English; reports translate by `finding`). */
  description: string;
  direction: EvidenceDirection;
  /** Log-odds added by this finding (0 for findings that are reported but not counted). */
  weight: number;
  /** Facts behind the finding (values read, bit counts, chance probability...). */
  details: Record<string, string | number | boolean | null>;
  /** Content Credentials only: the chain from the file's own manifest through its ingredients. */
  provenance?: ProvenanceStep[];
}

/** One manifest of a Content Credentials chain, as c2pa-rs validated it in this read. */
export interface ProvenanceStep {
  label: string;
  depth: number;
  /** `active` (the file's own manifest) or the ingredient relationship (`parentOf`, `componentOf`, `inputTo`). */
  relationship: string;
  title: string | null;
  signer: string | null;
  issuer: string | null;
  signedAt: string | null;
  signerTrusted: boolean;
  timeStampTrusted: boolean | null;
  claimGenerator: string | null;
  actions: string[];
  /** Actions of this manifest left out of `actions` (the reader lists 20; fewer when the evidence was shortened). */
  omittedActions?: number;
  digitalSourceType: string | null;
}

/** Per-region scores in [0, 1] (1: towards AI) on a grid covering the whole image. */
export interface RegionalEvidence {
  signal: SignalId;
  columns: number;
  rows: number;
  values: Float32Array;
}

export interface SignalOutcome {
  evidence: Evidence[];
  regional?: RegionalEvidence;
}

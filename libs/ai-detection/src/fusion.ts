import { Evidence } from './evidence';

/**
 * Fusion rule: the prior is even odds (probability 0.5); every counted finding adds its weight to the log-odds;
 * the sum is clamped to ±MAX_LOG_ODDS so no combination claims certainty. The rule is monotone: a finding
 * pointing to AI can only raise the probability, one pointing to a real photo can only lower it.
 */
export const MAX_LOG_ODDS = 6;

/** Thresholds of spec 2.7 (statusCode of the v2 detail). */
export type DetectionCategory = 'likely_real' | 'uncertain_real' | 'uncertain_ai' | 'likely_ai';

export function categoryOf(probability: number): DetectionCategory {
  if (probability < 0.25) return 'likely_real';
  if (probability < 0.5) return 'uncertain_real';
  if (probability < 0.75) return 'uncertain_ai';
  return 'likely_ai';
}

export interface FusedProbability {
  probability: number;
  logOdds: number;
  category: DetectionCategory;
  /** true when no counted finding exists: the result says "no evidence either way". */
  noEvidence: boolean;
  statement: string;
}

export function fuseEvidence(evidence: readonly Evidence[]): FusedProbability {
  const counted = evidence.filter((e) => e.weight !== 0);
  const sum = counted.reduce((total, e) => total + e.weight, 0);
  const logOdds = Math.max(-MAX_LOG_ODDS, Math.min(MAX_LOG_ODDS, sum));
  const probability = Math.round((1 / (1 + Math.exp(-logOdds))) * 10_000) / 10_000;
  const category = categoryOf(probability);
  const noEvidence = counted.length === 0;
  const statement = noEvidence
    ? 'No evidence either way: no signal found anything that points to an AI-generated or a captured image.'
    : `${counted.length} finding(s) counted; the probability is the documented fusion of their weights, not the output of a trained detector.`;
  return { probability, logOdds, category, noEvidence, statement };
}

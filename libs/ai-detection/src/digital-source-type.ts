/** IPTC Digital Source Type vocabulary (http://cv.iptc.org/newscodes/digitalsourcetype/), grouped by meaning. */
export type SourceTypeClass = 'ai' | 'compositeAi' | 'capture' | 'other';

const AI = new Set(['trainedAlgorithmicMedia', 'algorithmicMedia']);
const COMPOSITE_AI = new Set(['compositeWithTrainedAlgorithmicMedia', 'compositeSynthetic']);
const CAPTURE = new Set(['digitalCapture', 'negativeFilm', 'positiveFilm', 'print', 'computationalCapture']);

/** The term at the end of a source type URI (or the bare term). */
export function sourceTypeTerm(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

export function classifySourceType(value: string): SourceTypeClass {
  const term = sourceTypeTerm(value);
  if (AI.has(term)) return 'ai';
  if (COMPOSITE_AI.has(term)) return 'compositeAi';
  if (CAPTURE.has(term)) return 'capture';
  return 'other';
}

import { Evidence, ProvenanceStep } from './evidence';

/**
 * Most bytes the evidence of one image may take, serialized as JSON (UTF-8). The evidence travels whole in the
 * detector's completed event (one NATS message: at most the server's max_payload, 1 MiB by default) and in every
 * read of its order (up to 20 images in one reply). The file's author chooses the texts of a Content Credentials
 * manifest and the length of its chain, so the size is bounded here rather than left to the file: 32 KiB an image
 * keeps an event, and an order of 20 images, well below a NATS message.
 */
export const EVIDENCE_MAX_BYTES = 32 * 1024;

/** The share of the C2PA finding, the one finding whose size the file decides (the rest stay small). */
export const C2PA_EVIDENCE_MAX_BYTES = 24 * 1024;

/** Actions listed per manifest once the chain had to be shortened. */
export const SHORTENED_ACTIONS_PER_STEP = 3;

/** Ends the description of a finding that was shortened (`details.shortened` says it too). */
export const SHORTENED_NOTE = 'Shortened to fit the size limit of the evidence';

/** Text limits tried in turn by `fitEvidence`, in characters; at 0 only the chain's first manifest goes too. */
const TEXT_LIMITS = [200, 40, 0] as const;

export function serializedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** At most `limit` UTF-16 units, never half of a surrogate pair, ended by "…" when cut. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const end = limit > 0 && /[\uD800-\uDBFF]/.test(text[limit - 1]) ? limit - 1 : limit;
  return `${text.slice(0, end)}…`;
}

/** The step with at most `max` actions listed; the others are counted in `omittedActions`. */
export function withActionsLimited(step: ProvenanceStep, max: number): ProvenanceStep {
  if (step.actions.length <= max) return step;
  return { ...step, actions: step.actions.slice(0, max), omittedActions: (step.omittedActions ?? 0) + step.actions.length - max };
}

const cutOrNull = (text: string | null, limit: number): string | null => (text === null ? null : cutText(text, limit));

function stepWithTextsCut(step: ProvenanceStep, limit: number): ProvenanceStep {
  const limited = withActionsLimited(step, SHORTENED_ACTIONS_PER_STEP);
  return {
    ...limited,
    label: cutText(limited.label, limit),
    relationship: cutText(limited.relationship, limit),
    title: cutOrNull(limited.title, limit),
    signer: cutOrNull(limited.signer, limit),
    issuer: cutOrNull(limited.issuer, limit),
    signedAt: cutOrNull(limited.signedAt, limit),
    claimGenerator: cutOrNull(limited.claimGenerator, limit),
    actions: limited.actions.map((action) => cutText(action, limit)),
    digitalSourceType: cutOrNull(limited.digitalSourceType, limit),
  };
}

/**
 * One finding with every text cut to `limit` characters and its provenance cut to the first manifest (none at 0),
 * marked as shortened: `details.shortened`, the manifests left out added to `details.omittedManifests`, and the
 * description saying so. Codes (`signal`, `finding`, `direction`) and the weight are kept: the fusion is unchanged.
 */
function shortenFinding(evidence: Evidence, limit: number): Evidence {
  const details: Evidence['details'] = {};
  for (const [key, value] of Object.entries(evidence.details)) details[key] = typeof value === 'string' ? cutText(value, limit) : value;
  const steps = evidence.provenance ?? [];
  const kept = limit > 0 ? steps.slice(0, 1).map((step) => stepWithTextsCut(step, limit)) : [];
  const before = typeof evidence.details.omittedManifests === 'number' ? evidence.details.omittedManifests : 0;
  const omitted = before + steps.length - kept.length;
  const description = cutText(evidence.description, limit);
  return {
    signal: evidence.signal,
    finding: evidence.finding,
    // A finding the C2PA signal already shortened says so once.
    description: description.includes(SHORTENED_NOTE) ? description : `${description} [${SHORTENED_NOTE}.]`,
    direction: evidence.direction,
    weight: evidence.weight,
    details: { ...details, shortened: true, ...(omitted > 0 ? { omittedManifests: omitted } : {}) },
    ...(kept.length > 0 ? { provenance: kept } : {}),
  };
}

/**
 * The evidence of one image within `maxBytes` of JSON: returned unchanged when it fits; otherwise its largest
 * findings are shortened first (texts cut to 200, then 40, then no characters), one at a time, until it fits.
 * Deterministic (same evidence, same result), and never silent: a shortened finding says so. The signals fix the
 * number of findings and their detail keys, so the last step always fits (at most a few KiB without texts).
 */
export function fitEvidence(evidence: Evidence[], maxBytes: number = EVIDENCE_MAX_BYTES): Evidence[] {
  if (serializedBytes(evidence) <= maxBytes) return evidence;
  const current = [...evidence];
  for (const limit of TEXT_LIMITS) {
    const largestFirst = current
      .map((finding, index) => ({ index, bytes: serializedBytes(finding) }))
      .sort((a, b) => b.bytes - a.bytes || a.index - b.index);
    for (const { index } of largestFirst) {
      current[index] = shortenFinding(evidence[index], limit);
      if (serializedBytes(current) <= maxBytes) return current;
    }
  }
  return current;
}

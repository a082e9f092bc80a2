/**
 * A y axis for a bar chart of counts: `domain` is [0, top] and `ticks` are 5 evenly spaced values,
 * spaced by a "nice" step (1, 2 or 5 times a power of ten) so the top is at or above `max`.
 */
export function chartScale(max: number): { domain: number[]; ticks: number[] } {
  const intervals = 4;
  const raw = Math.max(1, max / intervals);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw) ?? 10 * magnitude;
  const top = step * intervals;
  return { domain: [0, top], ticks: Array.from({ length: intervals + 1 }, (_, index) => index * step) };
}

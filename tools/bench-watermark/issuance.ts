/* The issuance lists the benchmark and its replay extract with, as the service does (issue 36's tracing). */
import { issuedPayload } from '@cp/watermark';

/** The top bit of a 64-bit payload: set on every payload the service has issued since issue 36 (issued-payload.ts). */
const SCRAMBLED = 1n << 63n;

/**
 * One benchmark payload from the photo's random stream: 64 random bits with the top bit set, as the service embeds
 * them (a payload without it is read as a serial embedded before issue 36, which candidate tracing tests on the tag's
 * 138 coded bits only). Until the ninth session's run the benchmark left the top bit random, so half of its copies were
 * traced as old serials; the low bits, which seed the issue 34 rows' attacks, are the same draws as then.
 */
export function benchPayload(r: () => number): bigint {
  return SCRAMBLED | (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32));
}

/** `n` issued payloads that no benchmark copy carries, from serial `from` on. */
export function neverEmbedded(n: number, from: number): bigint[] {
  return Array.from({ length: n }, (_, i) => issuedPayload(BigInt(from + i)));
}

/** A photo's issuance list of `size`: its payloads of the run, then never-embedded ones (the same in main and replay). */
export function issuanceList(payloads: readonly bigint[], size: number): bigint[] {
  return [...payloads, ...neverEmbedded(Math.max(0, size - payloads.length), 90001)];
}

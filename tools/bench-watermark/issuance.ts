/* The issuance lists the benchmark and its replay extract with, as the service does (issue 36's tracing). */
import { issuedPayload } from '@cp/watermark';

/** `n` issued payloads that no benchmark copy carries, from serial `from` on. */
export function neverEmbedded(n: number, from: number): bigint[] {
  return Array.from({ length: n }, (_, i) => issuedPayload(BigInt(from + i)));
}

/** A photo's issuance list of `size`: its payloads of the run, then never-embedded ones (the same in main and replay). */
export function issuanceList(payloads: readonly bigint[], size: number): bigint[] {
  return [...payloads, ...neverEmbedded(Math.max(0, size - payloads.length), 90001)];
}

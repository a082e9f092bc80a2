/**
 * Issued payloads (issue 36): the 64-bit id embedded for an issuance.
 *
 * Until issue 36 the embedded payload was the issuance's serial number itself (1, 2, 3, …). Serial numbers share
 * their high bits, so their code words share most of the convolutional code's first 190 coded bits: every recipient
 * of an original carried nearly the same mark there, and a copy averaged from a few of them correlated with every
 * other recipient's mark too. Candidate tracing (trace.ts) needs the recipients' marks to be as close to orthogonal
 * as the code allows, so new issuances embed a scrambled serial: the top bit set (a serial number never has it, so an
 * old mark is still read as the serial it is) and the 63 other bits an invertible mixing of the serial
 * (xor-shift / odd-multiply rounds modulo 2^63, a bijection): consecutive serials get unrelated payloads.
 */

const BITS = 63n;
const MASK = (1n << BITS) - 1n;
const TOP = 1n << BITS;
// odd multipliers (invertible modulo 2^63)
const M1 = 0xbf58476d1ce4e5b9n & MASK;
const M2 = 0x94d049bb133111ebn & MASK;
const SHIFTS = [31n, 27n, 33n] as const;

/** Multiplicative inverse of an odd number modulo 2^63 (Newton's iteration doubles the correct bits each step). */
function inverseOdd(a: bigint): bigint {
  let x = a;
  for (let i = 0; i < 7; i++) x = (x * (2n - ((a * x) & MASK))) & MASK;
  return x;
}
const M1_INV = inverseOdd(M1);
const M2_INV = inverseOdd(M2);

function unshiftXor(y: bigint, s: bigint): bigint {
  // x ^= x >> s is undone by applying it repeatedly until the shifted part runs out of bits
  let x = y;
  for (let shift = s; shift < BITS; shift += s) x = y ^ (x >> s);
  return x & MASK;
}

function mix63(v: bigint): bigint {
  let x = v & MASK;
  x ^= x >> SHIFTS[0];
  x = (x * M1) & MASK;
  x ^= x >> SHIFTS[1];
  x = (x * M2) & MASK;
  x ^= x >> SHIFTS[2];
  return x;
}

function unmix63(v: bigint): bigint {
  let x = unshiftXor(v & MASK, SHIFTS[2]);
  x = (x * M2_INV) & MASK;
  x = unshiftXor(x, SHIFTS[1]);
  x = (x * M1_INV) & MASK;
  return unshiftXor(x, SHIFTS[0]);
}

/** The payload embedded for issuance serial `serial` (0 < serial < 2^63). */
export function issuedPayload(serial: bigint): bigint {
  if (serial < 0n || serial > MASK) throw new RangeError('serial must be below 2^63');
  return TOP | mix63(serial);
}

/** True for payloads made by `issuedPayload` (top bit set); false for the serials embedded before issue 36. */
export function isScrambledPayload(payload: bigint): boolean {
  return (payload & TOP) !== 0n;
}

/** The issuance serial a decoded payload stands for: scrambled payloads are unmixed, older marks are the serial. */
export function serialOfPayload(payload: bigint): bigint {
  return isScrambledPayload(payload) ? unmix63(payload) : payload;
}

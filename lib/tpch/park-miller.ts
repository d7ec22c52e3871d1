// Arithmetic of dbgen's 32-bit Park-Miller stream (seed' = seed * 16807 mod 2^31-1).
// Every value stays below 2^53 so plain JS numbers are exact; products of two
// 31-bit values are split so they never lose precision.

export const MULTIPLIER = 16807;
export const MODULUS = 2147483647;
// Schrage's decomposition: MODULUS = MULTIPLIER * Q + R, keeps one step in int32.
const SCHRAGE_Q = 127773;
const SCHRAGE_R = 2836;

/** One step of the stream: seed * 16807 mod 2^31-1 (seed in [1, 2^31-2]). */
export function nextSeed(seed: number): number {
  const hi = (seed / SCHRAGE_Q) | 0;
  const next = MULTIPLIER * (seed - hi * SCHRAGE_Q) - SCHRAGE_R * hi;
  return next <= 0 ? next + MODULUS : next;
}

/** (a * b) mod 2^31-1 for 0 <= a, b < 2^31, exact in doubles. */
export function mulMod(a: number, b: number): number {
  const high = ((a * Math.floor(b / 65536)) % MODULUS) * 65536;
  return (high + a * (b % 65536)) % MODULUS;
}

// Skip-ahead is multiplication by 16807^n; small n (row remainders) are tabulated.
const POW_TABLE_SIZE = 1024;
const POW_TABLE: Float64Array = (() => {
  const table = new Float64Array(POW_TABLE_SIZE);
  table[0] = 1;
  for (let i = 1; i < POW_TABLE_SIZE; i++) table[i] = (table[i - 1] * MULTIPLIER) % MODULUS;
  return table;
})();

/** 16807^count mod 2^31-1 (count >= 0, an integer below 2^53). */
export function multiplierPower(count: number): number {
  if (count < POW_TABLE_SIZE) return POW_TABLE[count];
  let result = 1;
  let base = MULTIPLIER;
  let n = count;
  while (n > 0) {
    if (n % 2 !== 0) result = mulMod(result, base);
    n = Math.floor(n / 2);
    base = mulMod(base, base);
  }
  return result;
}

/** The seed after `count` draws, without drawing them. */
export function advanceSeed(seed: number, count: number): number {
  if (count <= 0) return seed;
  return mulMod(seed, multiplierPower(count));
}

// The 64-bit Murmur3 hash Trino's sketches hash values with (airlift's Murmur3Hash128.hash64: the first half
// of x64 murmur3-128, seed 0, h1 + h2): of a long, as its 8 little-endian bytes, and of bytes (varchar's UTF-8).
// Unsigned 64-bit BigInts in and out; Java's signed long is the same bits.

const MASK = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;

const mul = (a: bigint, b: bigint): bigint => (a * b) & MASK;
const add = (a: bigint, b: bigint): bigint => (a + b) & MASK;
const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;

function mix64(value: bigint): bigint {
  let k = value;
  k ^= k >> 33n;
  k = mul(k, 0xff51afd7ed558ccdn);
  k ^= k >> 33n;
  k = mul(k, 0xc4ceb9fe1a85ec53n);
  k ^= k >> 33n;
  return k;
}

const mixK1 = (k: bigint): bigint => mul(rotl(mul(k, C1), 31n), C2);
const mixK2 = (k: bigint): bigint => mul(rotl(mul(k, C2), 33n), C1);

// The long's hash, the hot path (every bigint and double approx_set adds), works on unsigned 32-bit halves:
// BigInt arithmetic cost ~600 ns a value, this ~40 ns. A 64-bit value is (hi, lo); results go to OUT_HI/OUT_LO.
let OUT_HI = 0;
let OUT_LO = 0;

/** (aHi, aLo) × (bHi, bLo) modulo 2^64. */
function mul64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const [a1, a0, b1, b0] = [aLo >>> 16, aLo & 0xffff, bLo >>> 16, bLo & 0xffff];
  const middle = a0 * b1 + a1 * b0;
  const low = a0 * b0 + (middle % 0x10000) * 0x10000;
  const high = a1 * b1 + Math.floor(middle / 0x10000) + Math.floor(low / 0x100000000);
  OUT_LO = low >>> 0;
  OUT_HI = (high + Math.imul(aHi, bLo) + Math.imul(aLo, bHi)) >>> 0;
}

function add64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const low = aLo + bLo;
  OUT_LO = low >>> 0;
  OUT_HI = (aHi + bHi + (low > 0xffffffff ? 1 : 0)) >>> 0;
}

/** Rotation left by r, 0 < r < 32. */
function rotl64(hi: number, lo: number, r: number): void {
  OUT_HI = ((hi << r) | (lo >>> (32 - r))) >>> 0;
  OUT_LO = ((lo << r) | (hi >>> (32 - r))) >>> 0;
}

function mix64Halves(hi: number, lo: number): void {
  let [h, l] = [hi, (lo ^ (hi >>> 1)) >>> 0];
  mul64(h, l, 0xff51afd7, 0xed558ccd);
  [h, l] = [OUT_HI, (OUT_LO ^ (OUT_HI >>> 1)) >>> 0];
  mul64(h, l, 0xc4ceb9fe, 0x1a85ec53);
  OUT_LO = (OUT_LO ^ (OUT_HI >>> 1)) >>> 0;
}

const LONG_BITS = new DataView(new ArrayBuffer(8));

/** hash64 of a long (a BigInt taken as its low 64 bits, or a safe integer) as its high and low unsigned halves. */
export function murmur3Hash64OfLongHalves(value: bigint | number): { hi: number; lo: number } {
  let hi: number;
  let lo: number;
  if (typeof value === 'number') {
    lo = value >>> 0;
    hi = Math.floor(value / 0x100000000) >>> 0;
  } else {
    LONG_BITS.setBigUint64(0, BigInt.asUintN(64, value));
    hi = LONG_BITS.getUint32(0);
    lo = LONG_BITS.getUint32(4);
  }
  // k1 = rotl(value * C1, 31) * C2; h1 = h2 + (h2 ^ k1) with h2 = 8; hash = mix64(h1) + mix64(h1 + h2).
  mul64(hi, lo, 0x87c37b91, 0x114253d5);
  rotl64(OUT_HI, OUT_LO, 31);
  mul64(OUT_HI, OUT_LO, 0x4cf5ad43, 0x2745937f);
  add64(0, 8, OUT_HI, (OUT_LO ^ 8) >>> 0);
  const [h1Hi, h1Lo] = [OUT_HI, OUT_LO];
  mix64Halves(h1Hi, h1Lo);
  const [aHi, aLo] = [OUT_HI, OUT_LO];
  add64(h1Hi, h1Lo, 0, 8);
  mix64Halves(OUT_HI, OUT_LO);
  add64(aHi, aLo, OUT_HI, OUT_LO);
  return { hi: OUT_HI, lo: OUT_LO };
}

/** hash64 of a long (any BigInt, taken as its low 64 bits): Murmur3Hash128.hash64(long). */
export function murmur3Hash64OfLong(value: bigint): bigint {
  const { hi, lo } = murmur3Hash64OfLongHalves(value);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** The little-endian 64-bit word at `offset`. */
function word(data: Uint8Array, offset: number): bigint {
  let w = 0n;
  for (let i = 7; i >= 0; i--) w = (w << 8n) | BigInt(data[offset + i]!);
  return w;
}

/** hash64 of bytes: Murmur3Hash128.hash64(Slice). */
export function murmur3Hash64(data: Uint8Array): bigint {
  const length = data.length;
  let h1 = 0n;
  let h2 = 0n;
  let at = 0;
  for (; at + 16 <= length; at += 16) {
    h1 ^= mixK1(word(data, at));
    h1 = add(mul(add(rotl(h1, 27n), h2), 5n), 0x52dce729n);
    h2 ^= mixK2(word(data, at + 8));
    h2 = add(mul(add(rotl(h2, 31n), h1), 5n), 0x38495ab5n);
  }
  const rest = length - at;
  if (rest > 8) {
    let k2 = 0n;
    for (let i = rest - 1; i >= 8; i--) k2 = (k2 << 8n) | BigInt(data[at + i]!);
    h2 ^= mixK2(k2);
  }
  if (rest > 0) {
    let k1 = 0n;
    for (let i = Math.min(rest, 8) - 1; i >= 0; i--) k1 = (k1 << 8n) | BigInt(data[at + i]!);
    h1 ^= mixK1(k1);
  }
  h1 ^= BigInt(length);
  h2 ^= BigInt(length);
  h1 = add(h1, h2);
  h2 = add(h2, h1);
  return add(mix64(h1), mix64(h2));
}

const DOUBLE_BITS = new DataView(new ArrayBuffer(8));

/** Java's Double.doubleToLongBits: the bits of a double, every NaN as the canonical 0x7ff8000000000000. */
export function doubleToLongBits(value: number): bigint {
  if (Number.isNaN(value)) return 0x7ff8000000000000n;
  DOUBLE_BITS.setFloat64(0, value);
  return DOUBLE_BITS.getBigUint64(0);
}

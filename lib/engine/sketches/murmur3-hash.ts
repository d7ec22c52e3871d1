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

/** hash64 of a long (any BigInt, taken as its low 64 bits): Murmur3Hash128.hash64(long). */
export function murmur3Hash64OfLong(value: bigint): bigint {
  const h2 = 8n;
  const h1 = add(h2, h2 ^ mixK1(value & MASK));
  return add(mix64(h1), mix64(add(h1, h2)));
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

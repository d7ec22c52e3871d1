// Java's Float.toString and Double.toString (JDK 19 and later, as Trino runs), which Jackson writes for REAL
// and DOUBLE values in Trino's JSON: the decimal closest to the value among the shortest that round back to
// it, except that when one digit would do, two are allowed (Float.MIN_VALUE is 1.4E-45, not 1.0E-45);
// written plain from 1.0E-3 up to 1.0E7, else as d.dddE±n. Exact, in BigInt rationals: slow, for building
// the renderer's exceptions (row-renderer's REAL_EXCEPTIONS) and checking them, not for every value.

/** A binary floating-point format: bits of significand (with the hidden one) and the least exponent of a unit. */
interface BinaryFormat {
  precision: number;
  /** The exponent of the unit in the last place of a subnormal: 2^minExponent is the least positive value. */
  minExponent: number;
}

const FLOAT: BinaryFormat = { precision: 24, minExponent: -149 };
const DOUBLE: BinaryFormat = { precision: 53, minExponent: -1074 };

/** A non-negative rational num / den. */
interface Rational {
  num: bigint;
  den: bigint;
}

const compare = (a: Rational, b: Rational): number => {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
};
const pow10 = (n: number): bigint => 10n ** BigInt(n);
const power2 = (e: number): Rational => (e >= 0 ? { num: 1n << BigInt(e), den: 1n } : { num: 1n, den: 1n << BigInt(-e) });
/** digits × 10^scale */
const decimal = (digits: bigint, scale: number): Rational => (scale >= 0 ? { num: digits * pow10(scale), den: 1n } : { num: digits, den: pow10(-scale) });
const times = (a: Rational, b: Rational): Rational => ({ num: a.num * b.num, den: a.den * b.den });
const distance = (a: Rational, b: Rational): Rational => {
  const num = a.num * b.den - b.num * a.den;
  return { num: num < 0n ? -num : num, den: a.den * b.den };
};

/** A positive finite value as significand × 2^exponent, the significand an integer of at most `precision` bits. */
function decompose(x: number, format: BinaryFormat): { significand: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  // As a double: value = significand × 2^exponent (subnormal doubles have no hidden bit).
  let significand = biased === 0 ? fraction : fraction | (1n << 52n);
  let exponent = biased === 0 ? -1074 : biased - 1075;
  // Narrow to the format's precision and least exponent (exact: the value is one of the format's).
  const shift = Math.max(bitLength(significand) - format.precision, format.minExponent - exponent, 0);
  significand >>= BigInt(shift);
  exponent += shift;
  // Normalize: the fewest trailing zero bits is not needed, but the boundary test below wants the full width.
  while (bitLength(significand) < format.precision && exponent > format.minExponent) {
    significand <<= 1n;
    exponent--;
  }
  return { significand, exponent };
}

const bitLength = (n: bigint): number => n.toString(2).length;

/** The interval of reals that round to the value (round half to even): its ends, and whether they belong to it. */
function roundingInterval(x: number, format: BinaryFormat): { low: Rational; high: Rational; closed: boolean } {
  const { significand: m, exponent: e } = decompose(x, format);
  const half = power2(e - 1);
  const high = times({ num: 2n * m + 1n, den: 1n }, half);
  // At a power of two (not the least binade), the value below is half as far.
  const boundary = m === 1n << BigInt(format.precision - 1) && e > format.minExponent;
  const low = boundary ? times({ num: 4n * m - 1n, den: 1n }, power2(e - 2)) : times({ num: 2n * m - 1n, den: 1n }, half);
  return { low, high, closed: m % 2n === 0n };
}

/** The digits and exponent Java chooses for positive finite `x` of `format`: x ≈ digits × 10^scale. */
/**
 * How a decimal is chosen: Java's rule; the shortest without the two-digit rule (what DuckDB's text of a
 * double gives); or Java's rule over only the closest decimal of each length (what printf's correctly
 * rounded digits give: they differ only where the rounding interval is lopsided, at a power of two).
 */
type Choice = 'java' | 'shortest' | 'closest';

function javaDecimal(x: number, format: BinaryFormat, choice: Choice = 'java'): { digits: bigint; scale: number } {
  const shortestOnly = choice === 'shortest';
  const { significand, exponent } = decompose(x, format);
  const exact = times({ num: significand, den: 1n }, power2(exponent));
  const { low, high, closed } = roundingInterval(x, format);
  const inside = (d: Rational) => {
    const a = compare(d, low);
    const b = compare(d, high);
    return closed ? a >= 0 && b <= 0 : a > 0 && b < 0;
  };
  // k: the exponent of x's leading digit, 10^k <= x < 10^(k+1).
  let k = Math.floor(Math.log10(x));
  while (compare(decimal(1n, k), exact) > 0) k--;
  while (compare(decimal(1n, k + 1), exact) <= 0) k++;
  const pick = choice === 'closest' ? (scale: number) => closestIfInside(exact, scale, inside) : (scale: number) => closestInside(exact, scale, inside);
  for (let n = 1; n <= 17; n++) {
    const chosen = pick(k - n + 1);
    // One digit would do: Java allows two, and the closest of those wins (shortestOnly leaves the rule out).
    // One inside means one of the two-digit decimals around x is too (it lies between x and that one).
    if (chosen && n === 1 && !shortestOnly) return pick(k - 1)!;
    if (chosen) return chosen;
  }
  throw new Error(`no decimal rounds to ${x}`);
}

/** Of the two decimals at `scale` around `exact`, the closest inside the interval (ties: the even one), or undefined. */
function closestInside(exact: Rational, scale: number, inside: (d: Rational) => boolean): { digits: bigint; scale: number } | undefined {
  const unit = decimal(1n, scale);
  const below = (exact.num * unit.den) / (exact.den * unit.num);
  const candidates = [below, below + 1n].filter((d) => inside(decimal(d, scale)));
  const [a, b] = candidates;
  if (a === undefined) return undefined;
  if (b === undefined) return { digits: a, scale };
  const order = compare(distance(decimal(a, scale), exact), distance(decimal(b, scale), exact));
  return { digits: order < 0 || (order === 0 && a % 2n === 0n) ? a : b, scale };
}

/** The decimal at `scale` closest to `exact` (ties: the even one), when it is inside the interval. */
function closestIfInside(exact: Rational, scale: number, inside: (d: Rational) => boolean): { digits: bigint; scale: number } | undefined {
  const unit = decimal(1n, scale);
  const below = (exact.num * unit.den) / (exact.den * unit.num);
  const order = compare(distance(decimal(below, scale), exact), distance(decimal(below + 1n, scale), exact));
  const digits = order < 0 || (order === 0 && below % 2n === 0n) ? below : below + 1n;
  return inside(decimal(digits, scale)) ? { digits, scale } : undefined;
}

/** Java's layout of digits × 10^scale for a value `x`: plain in [1.0E-3, 1.0E7), else d.dddE±n. */
function javaLayout(negative: boolean, digits: bigint, scale: number, x: number): string {
  let text = digits.toString();
  // Trailing zeros carry no digit of their own.
  while (text.length > 1 && text.endsWith('0')) {
    text = text.slice(0, -1);
    scale++;
  }
  const sign = negative ? '-' : '';
  const leading = scale + text.length - 1;
  if (x >= 1e-3 && x < 1e7) {
    if (scale >= 0) return `${sign}${text}${'0'.repeat(scale)}.0`;
    const point = text.length + scale;
    if (point > 0) return `${sign}${text.slice(0, point)}.${text.slice(point)}`;
    return `${sign}0.${'0'.repeat(-point)}${text}`;
  }
  return `${sign}${text[0]}.${text.length > 1 ? text.slice(1) : '0'}E${leading}`;
}

function javaText(x: number, format: BinaryFormat, choice: Choice): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const { digits, scale } = javaDecimal(Math.abs(x), format, choice);
  return javaLayout(x < 0, digits, scale, Math.abs(x));
}

/** Java's Float.toString of `x` (a float: Math.fround(x) === x). */
export const javaFloatText = (x: number): string => javaText(Math.fround(x), FLOAT, 'java');

/** Java's Double.toString of `x`. */
export const javaDoubleText = (x: number): string => javaText(x, DOUBLE, 'java');

/** The shortest round-trip decimal of a float or double in Java's layout, without Java's two-digit rule (what DuckDB's text gives). */
export const shortestText = (x: number, real: boolean): string => javaText(real ? Math.fround(x) : x, real ? FLOAT : DOUBLE, 'shortest');

/** Java's rule over the correctly rounded decimal of each length only (printf's digits), in Java's layout: a float's text as the renderer builds it. */
export const closestFirstText = (x: number): string => javaText(Math.fround(x), FLOAT, 'closest');

/**
 * The positive values the renderer writes by value, with their Java text: where the way it builds the
 * text otherwise would differ. A double's text is DuckDB's shortest digits, which differ from Java's only
 * by the two-digit rule, and only for subnormals k × 2^-1074 with k < 100: a one-digit decimal d inside
 * the rounding interval is at most half a unit in the last place off, and a closer two-digit one (d is one
 * as well) needs that half unit to reach half a step of the two-digit grid, so k = x / ulp is below 100.
 * A real's text is the correctly rounded decimal of the fewest digits that reads back (closestFirstText),
 * which differs from Java's only at a power of two, where the interval is lopsided and Java may take the
 * other decimal of that length. (spec/protocol/java-float-text.spec.ts searches further.)
 */
export function textExceptions(real: boolean): { value: number; text: string }[] {
  const candidates = real
    ? Array.from({ length: 127 + 149 + 1 }, (_, i) => 2 ** (i - 149))
    : Array.from({ length: 99 }, (_, i) => (i + 1) * 2 ** DOUBLE.minExponent);
  const differs = (x: number) => (real ? javaFloatText(x) !== closestFirstText(x) : javaDoubleText(x) !== shortestText(x, false));
  return candidates.filter(differs).map((value) => ({ value, text: real ? javaFloatText(value) : javaDoubleText(value) }));
}

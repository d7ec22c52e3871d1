// Trino's ipaddress type: 16 bytes (an IPv4 address as its IPv4-mapped IPv6 form ::ffff:a.b.c.d), read
// from text as Guava's InetAddresses.forString reads it (Trino's cast from varchar) and written as its
// toAddrString writes it (IPv4-mapped as dotted IPv4, IPv6 in RFC 5952's compressed lower-case form).
// Values are unsigned 128-bit integers here, the 16 bytes big-endian: their order is Trino's byte order.
// In DuckDB a value is a one-field STRUCT of UHUGEINT, a type no other Trino type maps to, so it keeps
// its identity through tables, expressions and nesting (lib/engine/ip-address-functions.ts).
// Hand-written single passes: user text never meets a regular expression.
import type { Expression } from './ast.js';
import { fold } from './names.js';

/** The field of the DuckDB struct that carries an ipaddress. */
export const IPADDRESS_FIELD = 'vivace_ipaddress';
/** DuckDB's type for Trino's ipaddress. */
export const IPADDRESS_DUCKDB_TYPE = `STRUCT("${IPADDRESS_FIELD}" UHUGEINT)`;

/** The engine's functions the translation calls (lib/engine/ip-address-functions.ts). */
export const IP_ADDRESS_FUNCTIONS = {
  /** CAST(x AS ipaddress): varchar text, 4 or 16 bytes of varbinary, or an ipaddress. */
  cast: 'vivace_ipaddress',
  /** TRY_CAST(x AS ipaddress): NULL where the cast fails on the value. */
  tryCast: 'vivace_try_ipaddress',
  /** An ipaddress as Trino's text (CAST(ip AS varchar), and its JSON in a result). */
  text: 'vivace_ipaddress_text',
  /** An ipaddress as its 16 bytes (CAST(ip AS varbinary)). */
  bytes: 'vivace_ipaddress_bytes',
} as const;

/** The 96 high bits of an IPv4-mapped address (::ffff:0:0/96). */
const IPV4_MAPPED = 0xffffn;

/** Trino's message for text that is no IP address (INVALID_CAST_ARGUMENT). */
export const invalidIpAddressMessage = (text: string): string => `Cannot cast value to IPADDRESS: ${text}`;

const hexValue = (c: number): number => {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
};

/** A dotted quad (exactly four decimal octets, no leading zeros) as 32 bits, or undefined. */
function parseIpv4(text: string, from: number, to: number): number | undefined {
  let value = 0;
  let parts = 0;
  let start = from;
  for (let i = from; i <= to; i++) {
    if (i < to && text.charCodeAt(i) !== 46) continue;
    const length = i - start;
    // Guava: 1 to 3 digits, no leading zero but "0" itself, at most 255.
    if (length === 0 || length > 3 || (length > 1 && text.charCodeAt(start) === 48)) return undefined;
    let octet = 0;
    for (let j = start; j < i; j++) {
      const c = text.charCodeAt(j);
      if (c < 48 || c > 57) return undefined;
      octet = octet * 10 + (c - 48);
    }
    if (octet > 255 || ++parts > 4) return undefined;
    value = value * 256 + octet;
    start = i + 1;
  }
  return parts === 4 ? value : undefined;
}

/** One hextet: 1 to 4 hex digits. */
function parseHextet(text: string, from: number, to: number): number | undefined {
  if (to - from < 1 || to - from > 4) return undefined;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = hexValue(text.charCodeAt(i));
    if (digit < 0) return undefined;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * IPv6 text (no scope) as 8 hextets, Guava's rules: 2 to 8 colons, at most one `::` standing for at
 * least one zero hextet, a leading or trailing colon only as part of `::`, and optionally a dotted quad
 * as the last two hextets.
 */
function parseIpv6(text: string, from: number, to: number): bigint | undefined {
  const hextets: number[] = [];
  let skipAt = -1;
  let i = from;
  if (to - from < 2) return undefined;
  if (text.charCodeAt(i) === 58) {
    if (text.charCodeAt(i + 1) !== 58) return undefined;
    skipAt = 0;
    i += 2;
    if (i === to) return 0n;
  }
  while (i < to) {
    let end = i;
    let dotted = false;
    while (end < to && text.charCodeAt(end) !== 58) {
      if (text.charCodeAt(end) === 46) dotted = true;
      end++;
    }
    if (dotted) {
      // The dotted quad ends the text and fills two hextets.
      if (end !== to) return undefined;
      const v4 = parseIpv4(text, i, end);
      if (v4 === undefined) return undefined;
      hextets.push(Math.floor(v4 / 65536), v4 % 65536);
    } else {
      const hextet = parseHextet(text, i, end);
      if (hextet === undefined) return undefined;
      hextets.push(hextet);
    }
    if (hextets.length > 8) return undefined;
    if (end === to) break;
    // At a colon: `::` marks the skip (once); a colon may not end the text but as `::`.
    if (text.charCodeAt(end + 1) === 58) {
      if (skipAt >= 0) return undefined;
      skipAt = hextets.length;
      i = end + 2;
    } else {
      if (end + 1 === to) return undefined;
      i = end + 1;
    }
  }
  const missing = 8 - hextets.length;
  if (skipAt >= 0 ? missing < 1 : missing !== 0) return undefined;
  let value = 0n;
  for (let k = 0; k < hextets.length; k++) {
    if (k === skipAt) value <<= BigInt(16 * missing);
    value = (value << 16n) | BigInt(hextets[k]!);
  }
  if (skipAt === hextets.length) value <<= BigInt(16 * missing);
  return value;
}

/**
 * The ipaddress of `text` as an unsigned 128-bit value, or undefined where Trino's cast fails: IPv4
 * dotted quads (mapped to ::ffff:a.b.c.d), IPv6 in any of its forms, an IPv6 zone index as `%` and
 * decimal digits (ignored, as Guava reads it; interface names depend on the host there and are refused
 * here). ASCII only, no surrounding spaces.
 */
export function parseIpAddress(text: string): bigint | undefined {
  if (text.length === 0 || text.length > 64) return undefined;
  let hasColon = false;
  let hasDot = false;
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) hasDot = true;
    else if (c === 58) {
      if (hasDot) return undefined;
      hasColon = true;
    } else if (c === 37) {
      end = i;
      break;
    } else if (hexValue(c) < 0) return undefined;
  }
  if (!hasColon) {
    if (!hasDot || end !== text.length) return undefined;
    const v4 = parseIpv4(text, 0, end);
    return v4 === undefined ? undefined : (IPV4_MAPPED << 32n) | BigInt(v4);
  }
  if (end !== text.length) {
    // A zone: decimal digits (none is zone 0), never with a dotted quad (Guava reads the quad with its zone and fails).
    if (hasDot || text.length - end - 1 > 9) return undefined;
    for (let i = end + 1; i < text.length; i++) if (text.charCodeAt(i) < 48 || text.charCodeAt(i) > 57) return undefined;
  }
  const value = parseIpv6(text, 0, end);
  // Java turns an IPv4-mapped address into an Inet4Address, which takes no zone.
  if (value !== undefined && end !== text.length && value >> 32n === IPV4_MAPPED) return undefined;
  return value;
}

/** An ipaddress as Trino writes it: dotted IPv4 when IPv4-mapped, else RFC 5952 (longest run of 2+ zero hextets as `::`, first on a tie). */
export function formatIpAddress(value: bigint): string {
  if (value >> 32n === IPV4_MAPPED) {
    const v4 = Number(value & 0xffffffffn);
    return `${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`;
  }
  const hextets: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) hextets.push(Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (hextets[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && hextets[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  let text = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      text += '::';
      i += bestLength - 1;
      continue;
    }
    if (text.length > 0 && !text.endsWith(':')) text += ':';
    text += hextets[i]!.toString(16);
  }
  return text;
}

/** 16 bytes (or 4, an IPv4 address) as an ipaddress, Trino's cast from varbinary; undefined for another length. */
export function ipAddressOfBytes(bytes: Uint8Array): bigint | undefined {
  if (bytes.length !== 4 && bytes.length !== 16) return undefined;
  let value = bytes.length === 4 ? IPV4_MAPPED : 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return value;
}

/** DuckDB SQL for an ipaddress constant. */
export function ipAddressValueSql(value: bigint): string {
  return `{'${IPADDRESS_FIELD}': CAST('${value}' AS UHUGEINT)}`;
}

/**
 * DuckDB SQL that writes `sql`, a value of a type the translation cannot see (a column), with `write`
 * when it is an ipaddress and as `otherwise` (the cast as DuckDB makes it) for any other type. DuckDB folds
 * typeof() while planning, so only one branch remains: other types pay nothing.
 */
export function ifIpAddressSql(sql: string, write: 'text' | 'bytes', otherwise: string): string {
  return `CASE WHEN system.main.typeof(${sql}) = '${IPADDRESS_DUCKDB_TYPE.replace(/"/g, '')}' THEN ${IP_ADDRESS_FUNCTIONS[write]}(${sql}) ELSE ${otherwise} END`;
}

/** Whether the tree alone says an expression is an ipaddress: an IPADDRESS literal, or a cast to ipaddress. */
export function isIpAddressExpression(e: Expression): boolean {
  if (e.type === 'GenericLiteral') return fold(e.typeName.value) === 'ipaddress';
  return e.type === 'Cast' && e.targetType.type === 'GenericDataType' && fold(e.targetType.name.value) === 'ipaddress';
}

// Which header family (X-Service-, X-Presto-, X-Trino-) a request speaks. Clients only read response
// headers of their own family, so the answer must use the family of the request.
import { VivaceError } from './vivace-error.js';
import type { HeaderPrefix, ProtocolDialect } from './types.js';

export type RequestHeaders = Record<string, string | string[] | undefined>;

/** In the order they are reported when a request mixes them. */
export const HEADER_PREFIXES: readonly HeaderPrefix[] = ['X-Service-', 'X-Presto-', 'X-Trino-'];

/**
 * Request header names (without prefix) that identify a family. Only these count, so an unrelated header
 * that merely starts with a family prefix does not decide (or break) detection.
 */
const KNOWN_NAMES = new Set(
  [
    'User', 'Source', 'Catalog', 'Schema', 'Session', 'Time-Zone', 'Language', 'Client-Info', 'Client-Tags',
    'Trace-Token', 'Prepared-Statement', 'Transaction-Id', 'Role', 'Extra-Credential', 'Resource-Estimate',
    'Client-Capabilities', 'Path', 'Original-User', 'Original-Roles', 'Query-Data-Encoding',
  ].map((n) => n.toLowerCase()),
);

/** Every known header name in lower case (`x-presto-user`), with its family: one lookup per request header. */
const FAMILY_OF_NAME = new Map<string, HeaderPrefix>(
  HEADER_PREFIXES.flatMap((prefix) => [...KNOWN_NAMES].map((name) => [`${prefix.toLowerCase()}${name}`, prefix] as const)),
);

/** The family of a request; none present means `fallback` (our own X-Service-). Mixing families is a 400, as in Trino. */
export function detectPrefix(headers: RequestHeaders, fallback: HeaderPrefix = 'X-Service-'): HeaderPrefix {
  // Runs on every request: a loop over the names with one map lookup each (Node's names are lower case).
  let first: HeaderPrefix | undefined;
  let mixed = false;
  for (const name in headers) {
    if (headers[name] === undefined) continue;
    const prefix = FAMILY_OF_NAME.get(name) ?? FAMILY_OF_NAME.get(name.toLowerCase());
    if (prefix === undefined) continue;
    if (first === undefined) first = prefix;
    else if (prefix !== first) mixed = true;
  }
  if (!mixed) return first ?? fallback;
  const found = new Set<HeaderPrefix>();
  for (const name in headers) {
    const prefix = headers[name] === undefined ? undefined : FAMILY_OF_NAME.get(name.toLowerCase());
    if (prefix) found.add(prefix);
  }
  const families = HEADER_PREFIXES.filter((p) => found.has(p));
  throw new VivaceError('INCOMPATIBLE_CLIENT', `Request has headers of more than one protocol family: ${families.join(', ')}`, { httpStatus: 400 });
}

/** Trino clients need Trino's JSON shapes (ROW signatures); X-Service- and X-Presto- get prestodb's. */
export function dialectOf(prefix: HeaderPrefix): ProtocolDialect {
  return prefix === 'X-Trino-' ? 'trino' : 'presto';
}

/** First value of a header by name (any case), trimmed; empty counts as absent, as upstream's trimEmptyToNull. */
export function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const values = headerValues(headers, name);
  const first = values[0]?.trim();
  return first ? first : undefined;
}

/** All values of a header by name (any case): Node gives arrays only for some repeated headers. */
const mixedCase = new WeakMap<RequestHeaders, boolean>();

/** Whether any header name has an upper-case letter (remembered per headers object). */
function hasMixedCaseNames(headers: RequestHeaders): boolean {
  let mixed = mixedCase.get(headers);
  if (mixed === undefined) {
    mixed = Object.keys(headers).some((key) => key !== key.toLowerCase());
    mixedCase.set(headers, mixed);
  }
  return mixed;
}

export function headerValues(headers: RequestHeaders, name: string): string[] {
  const wanted = name.toLowerCase();
  // Node gives lowercase names, so a direct lookup serves it; other callers may use any case.
  const direct = headers[wanted];
  if (direct !== undefined) return Array.isArray(direct) ? [...direct] : [direct];
  if (!hasMixedCaseNames(headers)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined || key === wanted || key.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) out.push(...value);
    else out.push(value);
  }
  return out;
}

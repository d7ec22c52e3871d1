// The session of a query as request headers carry it, and the response headers that ask the client to
// change it (USE, SET SESSION, PREPARE, transactions). Upstream: HttpRequestSessionContext(Factory).
import { detectPrefix, headerValue, headerValues, type RequestHeaders } from './header-prefix.js';
import { javaUrlDecode, javaUrlEncode } from './java-url-codec.js';
import { VivaceError } from './vivace-error.js';
import type { ErrorName } from './error-codes.js';
import type { HeaderPrefix, Session, SessionUpdates } from './types.js';

export { javaUrlDecode, javaUrlEncode } from './java-url-codec.js';

/** The user when the request names none: the seed makes the user header optional. */
export const DEFAULT_USER = 'anonymous';

/** `ctx.prefix`: the request's header family when the caller has already detected it (detectPrefix). */
export function parseSession(headers: RequestHeaders, ctx: { remoteAddress: string; now: number; prefix?: HeaderPrefix }): Session {
  const prefix = ctx.prefix ?? detectPrefix(headers);
  const one = (name: string) => headerValue(headers, prefix + name);
  const catalog = one('Catalog');
  const schema = one('Schema');
  if (schema !== undefined && catalog === undefined) {
    throw new VivaceError('MISSING_CATALOG_NAME', 'Schema is set but catalog is not', { httpStatus: 400 });
  }
  const transactionHeader = headerValues(headers, prefix + 'Transaction-Id');
  return {
    prefix,
    user: one('User') ?? DEFAULT_USER,
    source: one('Source'),
    catalog,
    schema,
    timeZone: one('Time-Zone'),
    language: one('Language'),
    clientInfo: one('Client-Info'),
    clientTags: listItems(headerValues(headers, prefix + 'Client-Tags')),
    traceToken: one('Trace-Token'),
    properties: parsePairs(headers, prefix + 'Session', 'INVALID_SESSION_PROPERTY', false),
    preparedStatements: parsePairs(headers, prefix + 'Prepared-Statement', 'INVALID_ARGUMENTS', true),
    // Presence of the header, even empty, is how a client says it supports transactions.
    transactionId: transactionHeader.length === 0 ? undefined : transactionIdOf(one('Transaction-Id')),
    remoteUserAddress: ctx.remoteAddress,
    userAgent: headerValue(headers, 'user-agent'),
    startTime: ctx.now,
  };
}

/** Response headers for the session changes of a finished statement, in the request's family. */
export function sessionResponseHeaders(prefix: HeaderPrefix, updates: SessionUpdates): [string, string][] {
  const out: [string, string][] = [];
  if (updates.setCatalog !== undefined) out.push([prefix + 'Set-Catalog', updates.setCatalog]);
  if (updates.setSchema !== undefined) out.push([prefix + 'Set-Schema', updates.setSchema]);
  for (const [name, value] of Object.entries(updates.setSessionProperties ?? {})) {
    out.push([prefix + 'Set-Session', `${name}=${javaUrlEncode(value)}`]);
  }
  for (const name of updates.resetSessionProperties ?? []) out.push([prefix + 'Clear-Session', name]);
  for (const [name, sql] of Object.entries(updates.addedPreparedStatements ?? {})) {
    out.push([prefix + 'Added-Prepare', `${javaUrlEncode(name)}=${javaUrlEncode(sql)}`]);
  }
  for (const name of updates.deallocatedPreparedStatements ?? []) {
    out.push([prefix + 'Deallocated-Prepare', javaUrlEncode(name)]);
  }
  if (updates.startedTransactionId !== undefined) {
    out.push([prefix + 'Started-Transaction-Id', updates.startedTransactionId]);
  }
  if (updates.clearTransactionId) out.push([prefix + 'Clear-Transaction-Id', 'true']);
  for (const [catalog, role] of Object.entries(updates.setRoles ?? {})) out.push([prefix + 'Set-Role', `${catalog}=${javaUrlEncode(role)}`]);
  return out;
}

/** Comma-separated items, trimmed, empty ones dropped (upstream's Splitter.on(',').trimResults().omitEmptyStrings()). */
function listItems(values: string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * `name=urlenc(value)` items of a repeatable header. Items are split on ',' before decoding because encoded
 * values carry their commas as %2C. Session property names are sent raw; prepared statement names encoded.
 */
function parsePairs(
  headers: RequestHeaders,
  header: string,
  errorName: ErrorName,
  decodeNames: boolean,
): Record<string, string> {
  // Entries + fromEntries: a name like "__proto__" becomes a plain key instead of touching the prototype.
  const entries: [string, string][] = [];
  for (const item of listItems(headerValues(headers, header))) {
    const eq = item.indexOf('=');
    const rawName = eq < 0 ? '' : item.slice(0, eq).trim();
    if (rawName === '') throw invalidHeader(header, errorName, `'${item}'`);
    try {
      const name = decodeNames ? javaUrlDecode(rawName) : rawName;
      entries.push([name, javaUrlDecode(item.slice(eq + 1).trim())]);
    } catch (err) {
      throw invalidHeader(header, errorName, err instanceof Error ? err.message : String(err), err);
    }
  }
  return Object.fromEntries(entries);
}

function invalidHeader(header: string, errorName: ErrorName, detail: string, cause?: unknown): VivaceError {
  return new VivaceError(errorName, `Invalid ${header} header: ${detail}`, { httpStatus: 400, cause });
}

/** 'none' in any case is the "no transaction" marker; upstream clients send NONE. */
function transactionIdOf(value: string | undefined): string {
  return value === undefined || value.toLowerCase() === 'none' ? 'NONE' : value;
}

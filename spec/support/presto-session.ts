// A client-side session as the Java clients keep one (Trino/prestodb StatementClientV1 + the CLI's
// ClientSession): catalog, schema, session properties, prepared statements and the transaction id are
// sent on every POST and updated from the response headers of the statement (protocol.md section 4).
// The URL codec here is written out independently of lib/protocol/java-url-codec.ts on purpose.
import { runStatement } from './http.js';

export type ClientPrefix = 'X-Presto-' | 'X-Trino-';

/** Java's URLEncoder.encode(s, UTF_8): letters, digits and . - * _ stay, space is '+', the rest %XX. */
export function javaEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Java's URLDecoder.decode(s, UTF_8). */
export function javaDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

export interface StatementOutcome {
  /** Every response body, POST first, each validated against its schema. */
  responses: any[];
  /** The response headers of each response, in the same order. */
  headers: Headers[];
  /** The raw JSON text of the rows, `[[1,"a"],[2,"b"]]`: what the client decodes, before JSON.parse loses `1.0`. */
  dataText: string;
  rows: unknown[][];
  /** The last response body. */
  final: any;
  /** `columns` of the first response that has them. */
  columns: { name: string; type: string; typeSignature: unknown }[] | undefined;
  /** The error object when the query failed. */
  error: any;
}

export interface PrestoSessionOptions {
  prefix?: ClientPrefix;
  user?: string;
  catalog?: string;
  schema?: string;
  timeZone?: string;
  /** Send the Transaction-Id header (NONE without a transaction), as the Java clients always do. */
  supportsTransactions?: boolean;
}

export class PrestoSession {
  readonly prefix: ClientPrefix;
  user: string;
  catalog: string | undefined;
  schema: string | undefined;
  timeZone: string | undefined;
  supportsTransactions: boolean;
  readonly properties = new Map<string, string>();
  readonly preparedStatements = new Map<string, string>();
  transactionId: string | undefined;

  constructor(readonly url: string, options: PrestoSessionOptions = {}) {
    this.prefix = options.prefix ?? 'X-Presto-';
    this.user = options.user ?? 'spec';
    this.catalog = options.catalog;
    this.schema = options.schema;
    this.timeZone = options.timeZone;
    this.supportsTransactions = options.supportsTransactions ?? true;
  }

  /** The request headers of the next POST; repeated headers (one per property/statement) as upstream sends them. */
  requestHeaders(): Headers {
    const h = new Headers();
    const p = this.prefix;
    h.set(p + 'User', this.user);
    h.set(p + 'Source', 'vivace-spec');
    if (this.catalog !== undefined) h.set(p + 'Catalog', this.catalog);
    if (this.schema !== undefined) h.set(p + 'Schema', this.schema);
    if (this.timeZone !== undefined) h.set(p + 'Time-Zone', this.timeZone);
    for (const [name, value] of this.properties) h.append(p + 'Session', `${name}=${javaEncode(value)}`);
    for (const [name, sql] of this.preparedStatements) h.append(p + 'Prepared-Statement', `${javaEncode(name)}=${javaEncode(sql)}`);
    if (this.supportsTransactions) h.set(p + 'Transaction-Id', this.transactionId ?? 'NONE');
    return h;
  }

  /** POST the statement, follow nextUri to the end (validating every body), then apply the session changes. */
  async execute(sql: string): Promise<StatementOutcome> {
    const headersOut = this.requestHeaders();
    const plain: Record<string, string> = {};
    headersOut.forEach((value, name) => (plain[name] = value));
    const { responses, raw, rows, final } = await runStatement(this.url, sql, plain);
    const headers = raw.map((r) => r.headers);
    const dataParts: string[] = [];
    for (const { text } of raw) {
      const data = rawMember(text, 'data');
      if (data !== undefined && data !== '[]') dataParts.push(data.slice(1, -1));
    }
    // StatementClientV1.processResponse reads the headers of each response; the CLI applies what was
    // collected to its ClientSession once the query is done (the server sends them only on success).
    this.apply(collectUpdates(this.prefix, headers));
    return {
      responses,
      headers,
      dataText: `[${dataParts.join(',')}]`,
      rows,
      final,
      columns: responses.find((r) => r.columns !== undefined)?.columns,
      error: final.error,
    };
  }

  /** Execute and fail unless the query finished. */
  async ok(sql: string): Promise<StatementOutcome> {
    const out = await this.execute(sql);
    if (out.error !== undefined) throw new Error(`${sql} failed: ${out.error.errorName}: ${out.error.message}`);
    return out;
  }

  private apply(u: SessionChanges): void {
    if (u.setCatalog !== undefined) this.catalog = u.setCatalog;
    if (u.setSchema !== undefined) this.schema = u.setSchema;
    for (const [name, value] of u.setSession) this.properties.set(name, value);
    for (const name of u.clearSession) this.properties.delete(name);
    for (const [name, sql] of u.addedPrepare) this.preparedStatements.set(name, sql);
    for (const name of u.deallocatedPrepare) this.preparedStatements.delete(name);
    if (u.startedTransactionId !== undefined) this.transactionId = u.startedTransactionId;
    if (u.clearTransactionId) this.transactionId = undefined;
  }
}

export interface SessionChanges {
  setCatalog?: string;
  setSchema?: string;
  setSession: Map<string, string>;
  clearSession: Set<string>;
  addedPrepare: Map<string, string>;
  deallocatedPrepare: Set<string>;
  startedTransactionId?: string;
  clearTransactionId: boolean;
}

/** Repeated response headers arrive joined by ", " in fetch's Headers; upstream values never contain ", " unencoded. */
function values(headers: Headers, name: string): string[] {
  const joined = headers.get(name);
  return joined === null ? [] : joined.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

/** Splitter.on('=').limit(2).trimResults() */
function keyValue(item: string): [string, string] | undefined {
  const eq = item.indexOf('=');
  return eq < 0 ? undefined : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
}

export function collectUpdates(prefix: ClientPrefix, all: Headers[]): SessionChanges {
  const u: SessionChanges = { setSession: new Map(), clearSession: new Set(), addedPrepare: new Map(), deallocatedPrepare: new Set(), clearTransactionId: false };
  for (const headers of all) {
    const one = (name: string) => headers.get(prefix + name) ?? undefined;
    u.setCatalog = one('Set-Catalog') ?? u.setCatalog;
    u.setSchema = one('Set-Schema') ?? u.setSchema;
    for (const item of values(headers, prefix + 'Set-Session')) {
      const kv = keyValue(item);
      if (kv) u.setSession.set(kv[0], javaDecode(kv[1]));
    }
    for (const name of values(headers, prefix + 'Clear-Session')) u.clearSession.add(name);
    for (const item of values(headers, prefix + 'Added-Prepare')) {
      const kv = keyValue(item);
      if (kv) u.addedPrepare.set(javaDecode(kv[0]), javaDecode(kv[1]));
    }
    for (const name of values(headers, prefix + 'Deallocated-Prepare')) u.deallocatedPrepare.add(javaDecode(name));
    u.startedTransactionId = one('Started-Transaction-Id') ?? u.startedTransactionId;
    if (one('Clear-Transaction-Id') !== undefined) u.clearTransactionId = true;
  }
  return u;
}

/** The raw text of a top-level member's value in a JSON object text (strings and nesting skipped correctly). */
export function rawMember(text: string, member: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && text.slice(i, end) === JSON.stringify(member) && text[end] === ':') return valueText(text, end + 1);
      i = end - 1;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
  }
  return undefined;
}

/** Index just past the string literal starting at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function valueText(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      i = stringEnd(text, i) - 1;
      if (depth === 0) return text.slice(start, i + 1);
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      if (depth === 0) return text.slice(start, i);
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    } else if (depth === 0 && ch === ',') return text.slice(start, i);
  }
  return text.slice(start);
}

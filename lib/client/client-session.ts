// The CLI's session, as Trino's ClientSession: user, catalog, schema, session properties, prepared
// statements and the transaction id go out on every POST (X-Trino-* headers) and change when a statement's
// responses ask for it (Set-Catalog, Set-Session, Added-Prepare, Started-Transaction-Id, ...).
import { javaUrlDecode, javaUrlEncode } from '../protocol/java-url-codec.js';

const P = 'x-trino-';

export type ResponseHeaders = Record<string, string[] | undefined>;

export interface ClientSessionInit {
  user: string;
  source?: string;
  catalog?: string;
  schema?: string;
  properties?: [string, string][];
}

export class ClientSession {
  user: string;
  source: string;
  catalog: string | undefined;
  schema: string | undefined;
  readonly properties: Map<string, string>;
  readonly preparedStatements = new Map<string, string>();
  transactionId: string | undefined;

  constructor(init: ClientSessionInit) {
    this.user = init.user;
    this.source = init.source ?? 'vivace-cli';
    this.catalog = init.catalog;
    this.schema = init.schema;
    this.properties = new Map(init.properties ?? []);
  }

  /** Request headers of a POST; a repeated header is an array (one header line per item). */
  requestHeaders(): Record<string, string | string[]> {
    const h: Record<string, string | string[]> = { [`${P}user`]: this.user, [`${P}source`]: this.source };
    if (this.catalog !== undefined) h[`${P}catalog`] = this.catalog;
    if (this.schema !== undefined) h[`${P}schema`] = this.schema;
    if (this.properties.size > 0) h[`${P}session`] = [...this.properties].map(([k, v]) => `${k}=${javaUrlEncode(v)}`);
    if (this.preparedStatements.size > 0) {
      h[`${P}prepared-statement`] = [...this.preparedStatements].map(([k, v]) => `${javaUrlEncode(k)}=${javaUrlEncode(v)}`);
    }
    // Always sent, as the Java CLI does: it says the client supports transactions.
    h[`${P}transaction-id`] = this.transactionId ?? 'NONE';
    return h;
  }

  /** Apply what one response's headers (node's headersDistinct: lower-case names) ask for. */
  applyResponseHeaders(headers: ResponseHeaders): void {
    const one = (name: string) => headers[P + name]?.[0];
    const items = (name: string) =>
      (headers[P + name] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
    const catalog = one('set-catalog');
    if (catalog !== undefined) this.catalog = catalog;
    const schema = one('set-schema');
    if (schema !== undefined) this.schema = schema;
    for (const item of items('set-session')) {
      const kv = pair(item);
      if (kv) this.properties.set(kv[0], decode(kv[1]));
    }
    for (const name of items('clear-session')) this.properties.delete(name);
    for (const item of items('added-prepare')) {
      const kv = pair(item);
      if (kv) this.preparedStatements.set(decode(kv[0]), decode(kv[1]));
    }
    for (const name of items('deallocated-prepare')) this.preparedStatements.delete(decode(name));
    const started = one('started-transaction-id');
    if (started !== undefined) this.transactionId = started;
    if (one('clear-transaction-id') !== undefined) this.transactionId = undefined;
  }
}

function pair(item: string): [string, string] | undefined {
  const eq = item.indexOf('=');
  return eq <= 0 ? undefined : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
}

/** A malformed escape from the server is kept as sent rather than ending the session. */
function decode(s: string): string {
  try {
    return javaUrlDecode(s);
  } catch {
    return s;
  }
}

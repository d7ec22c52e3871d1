// Every system session property of Trino and Presto over HTTP: through the Session header of each family
// and through SET SESSION, typed values refused with INVALID_SESSION_PROPERTY, unknown names too. Malloy's
// Presto connection sends `X-Presto-Session: legacy_unnest=true` on every request.
import { expect } from 'chai';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { PrestoSession } from '../support/presto-session.js';
import {
  PRESTO_SESSION_PROPERTIES,
  TRINO_SESSION_PROPERTIES,
  type SystemSessionPropertyData,
} from '../../lib/protocol/system-session-property-data.js';

/** A valid value: the default, or a plain one of the type when upstream has none. */
function sample(p: SystemSessionPropertyData): string {
  if (p.defaultValue !== null && p.defaultValue !== '') return p.defaultValue;
  if (Array.isArray(p.kind)) return String(p.kind[0]);
  const plain: Record<string, string> = { boolean: 'true', integer: '8', bigint: '8', double: '0.5', duration: '1m', size: '1MB', zone: 'UTC' };
  return plain[p.type] ?? plain[String(p.kind)] ?? 'x';
}

describe('session properties over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
  });
  after(() => server.stop());

  it("Malloy's X-Presto-Session: legacy_unnest=true runs queries end to end", async () => {
    let response = await fetch(`${server.url}/v1/statement`, {
      method: 'POST',
      headers: { 'X-Presto-User': 'malloy', 'X-Presto-Session': 'legacy_unnest=true' },
      body: 'SELECT 1 AS one',
    });
    let body = (await response.json()) as any;
    const rows: unknown[] = [];
    while (true) {
      rows.push(...(body.data ?? []));
      if (!body.nextUri) break;
      response = await fetch(body.nextUri, { headers: { 'X-Presto-User': 'malloy' } });
      body = await response.json();
    }
    expect(body.error).to.equal(undefined);
    expect(body.stats.state).to.equal('FINISHED');
    expect(rows).to.deep.equal([[1]]);
    const shown = await new PrestoSession(server.url).ok("SHOW SESSION LIKE 'legacy_unnest'");
    expect(shown.rows.map((r) => r.slice(0, 4))).to.deep.equal([['legacy_unnest', 'false', 'false', 'boolean']]);
  });

  for (const [prefix, list] of [['X-Trino-', TRINO_SESSION_PROPERTIES], ['X-Presto-', PRESTO_SESSION_PROPERTIES]] as const) {
    it(`every ${prefix === 'X-Trino-' ? 'Trino' : 'Presto'} property (${list.length}) is accepted through ${prefix}Session and shown by SHOW SESSION unless hidden`, async () => {
      // legacy_materialized_views refuses every value under upstream's default configuration.
      const accepted = list.filter((p) => p.refused === undefined);
      const hidden = new Set(list.filter((p) => p.hidden).map((p) => p.name));
      for (let i = 0; i < accepted.length; i += 40) {
        const client = new PrestoSession(server.url, { prefix });
        for (const p of accepted.slice(i, i + 40)) client.properties.set(p.name, sample(p));
        const out = await client.ok('SHOW SESSION');
        const shown = new Map(out.rows.map((r) => [r[0], r[1]]));
        for (const [name, value] of client.properties) expect(shown.get(name), name).to.equal(hidden.has(name) ? undefined : value);
      }
    });
  }

  it('SET SESSION answers Set-Session for a kept property; the header then carries it back', async () => {
    const presto = new PrestoSession(server.url);
    const set = await presto.ok('SET SESSION legacy_unnest = true');
    expect(set.headers.at(-1)!.get('X-Presto-Set-Session')).to.equal('legacy_unnest=true');
    expect((await presto.ok('SELECT 2')).rows).to.deep.equal([[2]]);
    const trino = new PrestoSession(server.url, { prefix: 'X-Trino-' });
    await trino.ok("SET SESSION retry_policy = 'query'");
    expect(Object.fromEntries(trino.properties)).to.deep.equal({ retry_policy: 'QUERY' });
    // retry_policy is hidden upstream: kept and sent back, but SHOW SESSION leaves it out.
    expect((await trino.ok("SHOW SESSION LIKE 'retry_policy'")).rows).to.deep.equal([]);
  });

  it('a value of the wrong type, in the header or by SET SESSION, is INVALID_SESSION_PROPERTY', async () => {
    for (const [name, value] of [
      ['legacy_unnest', 'yes'],
      ['max_hash_partition_count', '1.5'],
      ['join_max_broadcast_table_size', '10 parsecs'],
      ['exchange_compression_codec', 'brotli'],
    ]) {
      const client = new PrestoSession(server.url);
      client.properties.set(name!, value!);
      const out = await client.execute('SELECT 1');
      expect(out.error, name).to.include({ errorName: 'INVALID_SESSION_PROPERTY', errorCode: 14, errorType: 'USER_ERROR' });
      expect(out.error.message).to.match(new RegExp(`^Invalid value '${value}' for session property '${name}'`));
    }
    const set = await new PrestoSession(server.url, { prefix: 'X-Trino-' }).execute('SET SESSION query_priority = 0');
    expect(set.error).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
  });

  it('an unknown name is INVALID_SESSION_PROPERTY through the header and SET SESSION', async () => {
    const client = new PrestoSession(server.url, { prefix: 'X-Trino-' });
    client.properties.set('legacy_unnest', 'true');
    client.properties.set('no_such_property', 'true');
    const out = await client.execute('SELECT 1');
    expect(out.error).to.include({ errorName: 'INVALID_SESSION_PROPERTY', message: "Session property 'no_such_property' does not exist" });
    const set = await new PrestoSession(server.url).execute("SET SESSION legacy_unnest_typo = 'true'");
    expect(set.error).to.include({ errorName: 'INVALID_SESSION_PROPERTY', message: "Session property 'legacy_unnest_typo' does not exist" });
  });
});

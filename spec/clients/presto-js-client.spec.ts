// @prestodb/presto-js-client (the official prestodb client, fetch-based) against a real coordinator on DuckDB.
import { expect } from 'chai';
import prestoJsClient, { type PrestoQuery, type PrestoError as PrestoErrorType } from '@prestodb/presto-js-client';

// The package is CommonJS whose exports Node's ESM loader cannot list (SWC's _export_star re-exports): its
// classes are read from the module object, as any ESM importer of it must.
const { PrestoClient, PrestoError } = prestoJsClient as unknown as typeof import('@prestodb/presto-js-client');
import {
  ENDLESS_SQL,
  expectTrinoPagingThrough,
  expectUserCanceled,
  firstManyRow,
  lastManyRow,
  MANY_ROWS,
  MANY_SQL,
  pollQueryInfo,
  queryInfo,
  SIMPLE_COLUMNS,
  SIMPLE_ROW,
  SIMPLE_SQL,
  SYNTAX_ERROR_SQL,
  useClientServer,
} from './client-server.js';

describe('@prestodb/presto-js-client against the coordinator', function () {
  this.timeout(10_000);
  const server = useClientServer();

  // `host` is the scheme and host; the client appends `:${port}`.
  const client = () =>
    new PrestoClient({ host: `http://${server().host}`, port: server().port, user: 'js-spec-user', catalog: 'memory', schema: 'default', source: 'client-spec' });

  /** The fetches the client makes, by method and URL (it uses the global fetch). */
  function recordFetches(): { calls: Array<{ method: string; url: string }>; restore(): void } {
    const original = globalThis.fetch;
    const calls: Array<{ method: string; url: string }> = [];
    globalThis.fetch = (input, init) => {
      calls.push({ method: init?.method ?? 'GET', url: String(input) });
      return original(input, init);
    };
    return { calls, restore: () => (globalThis.fetch = original) };
  }

  it('returns the rows and column names of a simple SELECT', async () => {
    const result = await client().query(SIMPLE_SQL);
    expect(result.columns?.map((c) => c.name)).to.deep.equal(SIMPLE_COLUMNS);
    expect(result.data).to.deep.equal([SIMPLE_ROW]);
    const info = await queryInfo(server().url, result.queryId!);
    expect(info.state).to.equal('FINISHED');
    expect(info.session.user).to.equal('js-spec-user');
  });

  it(`collects ${MANY_ROWS} rows fetched over several pages`, async () => {
    const fetches = recordFetches();
    let result: PrestoQuery;
    try {
      result = await client().query(MANY_SQL);
    } finally {
      fetches.restore();
    }
    expect(result.columns?.map((c) => c.name)).to.deep.equal(['i', 's']);
    const rows = result.data as unknown[][];
    expect(rows).to.have.length(MANY_ROWS);
    expect(rows[0]).to.deep.equal(firstManyRow);
    expect(rows[rows.length - 1]).to.deep.equal(lastManyRow);
    expect(rows.every((row, i) => row[0] === i)).to.equal(true);
    // The client hides its pages; count its GETs of nextUri instead (one POST, then several GETs).
    expect(fetches.calls[0]).to.deep.include({ method: 'POST' });
    expect(fetches.calls.filter((c) => c.method === 'GET' && c.url.includes('/v1/statement/')).length).to.be.greaterThan(2);
  });

  it('pages as Trino: every row once, none on the last response', async () => {
    await expectTrinoPagingThrough(server(), 'memory.default.paging_presto_js_client', async (sql) => {
      try {
        const result = await client().query(sql);
        return { rows: (result.data ?? []).length };
      } catch (err) {
        if (err instanceof PrestoError) return { rows: 0, error: err.errorName };
        throw err;
      }
    });
  });

  it('throws a syntax error as PrestoError with errorName SYNTAX_ERROR', async () => {
    let thrown: unknown;
    try {
      await client().query(SYNTAX_ERROR_SQL);
    } catch (err) {
      thrown = err;
    }
    // presto-js-client throws PrestoError only for an `error` on a nextUri page; a POST answer without
    // nextUri makes query() throw a plain Error("Didn't receive the first nextUri") (client.js, query()).
    expect(thrown, String(thrown)).to.be.instanceOf(PrestoError);
    const error = thrown as PrestoErrorType;
    expect(error.errorName).to.equal('SYNTAX_ERROR');
    expect(error.errorType).to.equal('USER_ERROR');
    expect(error.errorCode).to.equal(1);
    expect(error.message).to.match(/^line 1:1: /);
  });

  it('has no cancel API: a DELETE of /v1/query/{id} via fetch fails the running query with USER_CANCELED', async () => {
    // queryGenerator yields the query id first, then (on the next step) polls the query to its end.
    const generator = client().queryGenerator(ENDLESS_SQL);
    const first = await generator.next();
    const queryId = first.value as string;
    expect(queryId).to.be.a('string');
    const polling = generator.next().then(
      (result) => ({ result, error: undefined as unknown }),
      (error: unknown) => ({ result: undefined, error }),
    );
    // Running and producing rows (the cross join has 10^12 of them): long-running by design.
    const running = await pollQueryInfo(server().url, queryId, (info) => info.state === 'RUNNING' && info.queryStats.outputPositions > 0);
    expect(running.state).to.equal('RUNNING');
    const del = await fetch(`${server().url}/v1/query/${queryId}`, { method: 'DELETE', headers: { 'X-Presto-User': 'js-spec-user' } });
    expect(del.status).to.equal(204);
    await expectUserCanceled(server().url, queryId);
    // The client's polling sees the failure on its next page and throws it.
    const { result, error } = await polling;
    expect(result).to.equal(undefined);
    expect(error).to.be.instanceOf(PrestoError);
    expect((error as PrestoErrorType).errorName).to.equal('USER_CANCELED');
  });
});

// trino-client (the official Trino JS client, used by Malloy) against a real coordinator on DuckDB.
import { expect } from 'chai';
import type { QueryResult, Trino as TrinoClient } from 'trino-client';
import {
  ENDLESS_SQL,
  expectTrinoPagingThrough,
  expectUserCanceled,
  firstManyRow,
  lastManyRow,
  MANY_ROWS,
  MANY_SQL,
  queryInfo,
  SIMPLE_COLUMNS,
  SIMPLE_ROW,
  SIMPLE_SQL,
  SYNTAX_ERROR_SQL,
  useClientServer,
} from './client-server.js';
import { importTrinoClient, TRINO_SPEC_USER } from '../support/trino-client-loader.js';

describe('trino-client against the coordinator', function () {
  this.timeout(10_000);
  const server = useClientServer();
  let Trino: typeof import('trino-client').Trino;

  before(async () => {
    // trino-client sends $USER as read when it first loads (trino-client-loader.ts).
    ({ Trino } = await importTrinoClient());
  });

  const client = (): TrinoClient => Trino.create({ server: server().url, catalog: 'memory', schema: 'default', source: 'client-spec' });

  it('returns the rows and column names of a simple SELECT', async () => {
    const iter = await client().query(SIMPLE_SQL);
    const pages: QueryResult[] = [];
    for await (const page of iter) pages.push(page);
    expect(pages.map((p) => p.error)).to.deep.equal(pages.map(() => undefined));
    const withData = pages.filter((p) => p.data?.length);
    expect(withData).to.have.length(1);
    expect(withData[0].columns?.map((c) => c.name)).to.deep.equal(SIMPLE_COLUMNS);
    expect(withData[0].data).to.deep.equal([SIMPLE_ROW]);
    const info = await queryInfo(server().url, withData[0].id);
    expect(info.state).to.equal('FINISHED');
    expect(info.session.user).to.equal(TRINO_SPEC_USER);
  });

  it(`pages ${MANY_ROWS} rows through the iterator (map/fold, as its README does)`, async () => {
    let pages = 0;
    const rows = await (await client().query(MANY_SQL))
      .map((page) => {
        if (page.error) throw new Error(`${page.error.errorName}: ${page.error.message}`);
        if (page.data?.length) {
          pages++;
          expect(page.columns?.map((c) => c.name)).to.deep.equal(['i', 's']);
        }
        return page.data ?? [];
      })
      .fold<unknown[][]>([], (data, acc) => acc.concat(data));
    expect(rows).to.have.length(MANY_ROWS);
    expect(rows[0]).to.deep.equal(firstManyRow);
    expect(rows[rows.length - 1]).to.deep.equal(lastManyRow);
    expect(rows.every((row, i) => row[0] === i)).to.equal(true);
    expect(pages).to.be.greaterThan(1);
  });

  it("pages as Trino for Malloy's read loop, which reads the value next() returns with done: true: every row once", async () => {
    // @malloydata/db-trino's runSQL: take value.data of every result, the one with done: true included
    // (the iterator returns the last response again there). Rows on that last response would count twice.
    const malloyRows = async (sql: string) => {
      const iter = await client().query(sql);
      let result = await iter.next();
      let rows = 0;
      let error: string | undefined;
      for (;;) {
        rows += result.value.data?.length ?? 0;
        error ??= result.value.error?.errorName;
        if (result.done) break;
        result = await iter.next();
      }
      return { rows, ...(error ? { error } : {}) };
    };
    await expectTrinoPagingThrough(server(), 'memory.default.paging_trino_client', malloyRows);
  });

  it('returns a syntax error as the result page with `error` set (SYNTAX_ERROR)', async () => {
    // As trino-client's own integration test reads errors: the value of the first next().
    const iter = await client().query(SYNTAX_ERROR_SQL);
    const result = await iter.next();
    const page: QueryResult = result.value;
    expect(page.error, JSON.stringify(page)).to.be.an('object');
    expect(page.error!.errorName).to.equal('SYNTAX_ERROR');
    expect(page.error!.errorType).to.equal('USER_ERROR');
    expect(page.error!.errorCode).to.equal(1);
    expect(page.error!.message).to.match(/^line 1:1: /);
    expect(page.stats?.state).to.equal('FAILED');
    expect(page.nextUri).to.equal(undefined);
    const info = await queryInfo(server().url, page.id);
    expect(info.state).to.equal('FAILED');
    expect(info.errorCode.name).to.equal('SYNTAX_ERROR');
  });

  it("yields the failed page to the README's for-await loop, so the caller can see the SYNTAX_ERROR", async () => {
    // trino-client never yields the POST response: if the POST answers the failure itself (no nextUri),
    // next() returns it with done: true and for-await drops it, so the loop sees no error and no rows.
    const pages: QueryResult[] = [];
    for await (const page of await client().query(SYNTAX_ERROR_SQL)) pages.push(page);
    expect(pages.map((p) => p.error?.errorName)).to.deep.equal(['SYNTAX_ERROR']);
  });

  it('cancels with cancel(queryId) after the first page: FAILED with USER_CANCELED', async () => {
    const trino = client();
    const iter = await trino.query(ENDLESS_SQL);
    const first = await iter.next();
    const page: QueryResult = first.value;
    expect(first.done).to.equal(false);
    expect(page.error).to.equal(undefined);
    expect(page.data?.length).to.be.greaterThan(0);
    expect(page.nextUri).to.be.a('string');
    const before = await queryInfo(server().url, page.id);
    expect(before.state).to.equal('RUNNING');
    const cancelled = await trino.cancel(page.id);
    expect(cancelled).to.deep.equal({ id: page.id });
    await expectUserCanceled(server().url, page.id);
    // The client's own queryInfo reads the same.
    const info = (await trino.queryInfo(page.id)) as any;
    expect(info.state).to.equal('FAILED');
    expect(info.errorCode.name).to.equal('USER_CANCELED');
    // Iterating on (skipping the pages already buffered) ends in the failed page.
    let last: QueryResult | undefined;
    for await (const next of iter) last = next;
    expect(last?.error?.errorName).to.equal('USER_CANCELED');
  });
});

// lento (streaming Presto client) against a real coordinator on DuckDB.
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import lento, { type LentoClient } from 'lento';
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

describe('lento against the coordinator', function () {
  this.timeout(10_000);
  const server = useClientServer();

  // maxRetries 0: a 503 or a retriable error code fails at once instead of hiding behind retries.
  const client = (): LentoClient =>
    lento({ hostname: server().host, port: server().port, user: 'lento-spec-user', catalog: 'memory', schema: 'default', maxRetries: 0 });

  const query = (c: LentoClient, sql: string, options: { rowFormat?: 'array' | 'object' } = {}) =>
    new Promise<{ error?: any; rows?: any[] }>((resolve) => c.query(sql, options, (error, rows) => resolve(error ? { error } : { rows })));

  it('returns the rows of a simple SELECT as objects keyed by column name', async () => {
    const c = client();
    const objects = await query(c, SIMPLE_SQL);
    expect(objects.error).to.equal(undefined);
    expect(objects.rows).to.deep.equal([Object.fromEntries(SIMPLE_COLUMNS.map((name, i) => [name, SIMPLE_ROW[i]]))]);
    const arrays = await query(c, SIMPLE_SQL, { rowFormat: 'array' });
    expect(arrays.error).to.equal(undefined);
    expect(arrays.rows).to.deep.equal([SIMPLE_ROW]);
  });

  it(`streams ${MANY_ROWS} rows as one chunk per server page (page stream, pageSize 0)`, async () => {
    const stream = client().createPageStream(MANY_SQL, { rowFormat: 'array', pageSize: 0 });
    let columns: Array<{ name: string }> | undefined;
    let queryId: string | undefined;
    stream.on('columns', (c) => (columns = c));
    stream.on('id', (id) => (queryId = id));
    const pages: unknown[][][] = [];
    stream.on('data', (page: unknown[][]) => pages.push(page));
    await once(stream, 'end');
    expect(columns?.map((c) => c.name)).to.deep.equal(['i', 's']);
    const rows = pages.flat();
    expect(rows).to.have.length(MANY_ROWS);
    expect(rows[0]).to.deep.equal(firstManyRow);
    expect(rows[rows.length - 1]).to.deep.equal(lastManyRow);
    expect(rows.every((row, i) => row[0] === i)).to.equal(true);
    expect(pages.length).to.be.greaterThan(1);
    const info = await queryInfo(server().url, queryId!);
    expect(info.state).to.equal('FINISHED');
    expect(info.session.user).to.equal('lento-spec-user');
  });

  it('pages as Trino: every row once, none on the last response', async () => {
    await expectTrinoPagingThrough(server(), 'memory.default.paging_lento', async (sql) => {
      const { error, rows } = await query(client(), sql, { rowFormat: 'array' });
      return error ? { rows: 0, error: error.code } : { rows: rows!.length };
    });
  });

  it('raises a syntax error as PrestoError with code SYNTAX_ERROR', async () => {
    const { error, rows } = await query(client(), SYNTAX_ERROR_SQL);
    expect(rows).to.equal(undefined);
    expect(error).to.be.instanceOf(Error);
    expect(error.name).to.equal('PrestoError');
    expect(error.code).to.equal('SYNTAX_ERROR');
    expect(error.type).to.equal('USER_ERROR');
    expect(error.message).to.match(/^SYNTAX_ERROR: line 1:1: /);
  });

  it('cancels with destroy() on the stream after the first page (DELETE /v1/query/{id}, 204): FAILED with USER_CANCELED', async () => {
    const stream: Readable = client().createPageStream(ENDLESS_SQL, { rowFormat: 'array', pageSize: 0 });
    let queryId: string | undefined;
    let cancelSent = false;
    const errors: unknown[] = [];
    stream.on('id', (id) => (queryId = id));
    stream.on('cancel', () => (cancelSent = true));
    stream.on('error', (err) => errors.push(err));
    const [firstPage] = (await once(stream, 'data')) as [unknown[][]];
    stream.pause();
    expect(firstPage.length).to.be.greaterThan(0);
    const before = await queryInfo(server().url, queryId!);
    expect(before.state).to.equal('RUNNING');
    const closed = once(stream, 'close');
    stream.destroy();
    await closed;
    expect(cancelSent).to.equal(true);
    // lento reports a DELETE that did not answer exactly 204 as an 'error' on the stream.
    expect(errors).to.deep.equal([]);
    await expectUserCanceled(server().url, queryId!);
  });
});

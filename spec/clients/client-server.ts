// One real coordinator on the real DuckDB engine per client spec file, plus the SQL every client spec runs
// and helpers to read /v1/query/{id} ourselves (schema-validated).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createDuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { request, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { expectTrinoPagingOfTraffic, recordStatementTraffic, type StatementTraffic } from '../support/statement-paging.js';

export interface ClientServer {
  readonly test: TestServer;
  /** `http://127.0.0.1:port` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Every /v1/statement response the server sent (rows counted, not kept); clear it before a check. */
  readonly traffic: StatementTraffic;
}

/** Four columns of four types, one row. */
export const SIMPLE_SQL = `SELECT 1 AS a, 'x' AS b, CAST(2.5 AS DOUBLE) AS c, DATE '2001-08-22' AS d`;
export const SIMPLE_COLUMNS = ['a', 'b', 'c', 'd'];
export const SIMPLE_ROW = [1, 'x', 2.5, '2001-08-22'];

/**
 * 60,000 rows (0 ... 59,999, as 60 x 1,000: Presto's sequence() stops at 10,000 entries); at
 * TARGET_RESULT_BYTES per page they arrive over many pages.
 */
export const MANY_ROWS = 60_000;
export const MANY_SQL =
  `SELECT a * 1000 + b AS i, 'row-' || CAST(a * 1000 + b AS varchar) AS s ` +
  `FROM UNNEST(sequence(0, ${MANY_ROWS / 1000 - 1})) AS x(a) CROSS JOIN UNNEST(sequence(0, 999)) AS y(b) ORDER BY i`;
export const firstManyRow = [0, 'row-0'];
export const lastManyRow = [MANY_ROWS - 1, `row-${MANY_ROWS - 1}`];

/**
 * A cross join of 10^4 x 10^4 x 10^4 = 10^12 rows: it streams its first page at once and can never finish
 * within a test (the server produces only a few pages ahead of the client), so it is long-running by design.
 */
export const ENDLESS_SQL =
  'SELECT a, b FROM UNNEST(sequence(1, 10000)) AS x(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS y(b) ' +
  'CROSS JOIN UNNEST(sequence(1, 10000)) AS z(c)';

export const SYNTAX_ERROR_SQL = 'SELEC 1';

/** A result without rows: columns, no data. */
export const EMPTY_SQL = 'SELECT 1 AS a WHERE false';

/** Small pages, so that MANY_SQL spans many of them (~1.2 MB of row JSON). */
export const TARGET_RESULT_BYTES = 64 * 1024;

/**
 * Register before/after hooks in the calling describe block: start a coordinator on a DuckDB engine with
 * its own temporary directory on 127.0.0.1 and a free port; stop it and remove the directory afterwards.
 * The returned getter is valid inside tests.
 */
export function useClientServer(): () => ClientServer {
  let current: ClientServer | undefined;
  let tempDirectory: string | undefined;
  before(async function () {
    this.timeout(20_000);
    tempDirectory = await mkdtemp(join(tmpdir(), 'vivace-clients-'));
    const engine = await createDuckDbEngine({ tempDirectory, threads: 2, memoryLimit: '1GB' });
    const test = await startTestServer({ engine, config: { targetResultBytes: TARGET_RESULT_BYTES } });
    current = { test, url: test.url, host: '127.0.0.1', port: test.server.port, traffic: recordStatementTraffic(test.server.server) };
  });
  after(async () => {
    current?.traffic.stop();
    await current?.test.stop();
    current = undefined;
    if (tempDirectory) await rm(tempDirectory, { recursive: true, force: true });
  });
  return () => {
    if (!current) throw new Error('the client server is not running (use it inside a test)');
    return current;
  };
}

/** GET /v1/query/{id}: status 200, application/json, and a body valid against query-info. */
export async function queryInfo(url: string, queryId: string): Promise<any> {
  const res = await request('GET', `${url}/v1/query/${queryId}`);
  expect(res.status, res.text).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/json');
  validateResponse('query-info', res.body);
  expect(res.body.queryId).to.equal(queryId);
  return res.body;
}

/**
 * Poll /v1/query/{id} back to back (no timers) until `until` holds for the info, at most `maxPolls` times.
 * Returns the first info for which it holds; fails with the last one seen otherwise.
 */
export async function pollQueryInfo(url: string, queryId: string, until: (info: any) => boolean, maxPolls = 500): Promise<any> {
  let info: any;
  for (let i = 0; i < maxPolls; i++) {
    info = await queryInfo(url, queryId);
    if (until(info)) return info;
  }
  throw new Error(`query ${queryId} did not reach the expected condition after ${maxPolls} polls; last state ${info?.state}`);
}

export const isDone = (info: any): boolean => info.state === 'FINISHED' || info.state === 'FAILED';

/** The query was cancelled by its user: FAILED with USER_CANCELED (the body is already schema-valid). */
export async function expectUserCanceled(url: string, queryId: string): Promise<any> {
  const info = await pollQueryInfo(url, queryId, isDone);
  expect(info.state).to.equal('FAILED');
  expect(info.errorCode.name).to.equal('USER_CANCELED');
  expect(info.errorType).to.equal('USER_ERROR');
  return info;
}

/** What a client library delivered for one statement: its rows, or the errorName it reported. */
export interface ClientOutcome {
  rows: number;
  error?: string;
}

/** The statements of the paging check, with the rows a client must deliver for each (DML: its count row). */
function pagingCases(table: string): Array<{ sql: string; rows: number; error?: string }> {
  return [
    { sql: SIMPLE_SQL, rows: 1 },
    { sql: EMPTY_SQL, rows: 0 },
    { sql: MANY_SQL, rows: MANY_ROWS },
    { sql: `CREATE TABLE ${table} (a bigint)`, rows: 0 },
    { sql: `INSERT INTO ${table} VALUES (1), (2), (3)`, rows: 1 },
    { sql: `DROP TABLE ${table}`, rows: 0 },
    { sql: SYNTAX_ERROR_SQL, rows: 0, error: 'SYNTAX_ERROR' },
  ];
}

/**
 * Runs SELECT, an empty result, a multi-page result, DDL, DML and a failing statement through a client
 * library (`run`), and checks for each what the server sent (rows only on responses with a nextUri, the
 * last response without rows: protocol.md 1.4) and what the client delivered (every row exactly once).
 */
export async function expectTrinoPagingThrough(current: ClientServer, table: string, run: (sql: string) => Promise<ClientOutcome>): Promise<void> {
  for (const c of pagingCases(table)) {
    current.traffic.clear();
    const outcome = await run(c.sql);
    expect(outcome, c.sql).to.deep.equal({ rows: c.rows, ...(c.error ? { error: c.error } : {}) });
    const sent = expectTrinoPagingOfTraffic(current.traffic);
    expect([...sent.values()], `rows the server sent for ${c.sql}`).to.deep.equal([c.rows]);
  }
}

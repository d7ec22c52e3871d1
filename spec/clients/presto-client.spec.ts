// presto-client (also behind Cube's Presto and Trino drivers) against a real coordinator on DuckDB.
import { expect } from 'chai';
import { Client, type ExecuteOptions, type PrestoColumn } from 'presto-client';
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

interface Outcome {
  queryId?: string;
  columns?: PrestoColumn[];
  pages: unknown[][][];
  states: string[];
  error?: any;
  stats?: { state: string };
}

describe('presto-client against the coordinator', function () {
  this.timeout(10_000);
  const server = useClientServer();

  const client = (engine: 'presto' | 'trino' = 'presto') =>
    // checkInterval is the pause before every nextUri GET (default 800 ms); 0 would mean the default.
    new Client({ host: server().host, port: server().port, user: 'spec-user', source: 'client-spec', catalog: 'memory', schema: 'default', engine, checkInterval: 1 });

  /** Run a statement to its end through execute(), collecting everything the callbacks report. */
  function execute(c: Client, query: string, extra: Partial<ExecuteOptions> = {}, outcome: Outcome = { pages: [], states: [] }): Promise<Outcome> {
    return new Promise((resolve) => {
      c.execute({
        query,
        state: (_err, queryId, stats) => {
          outcome.queryId = queryId;
          outcome.states.push(stats.state);
        },
        columns: (_err, columns) => {
          outcome.columns = columns;
        },
        data: (_err, data) => {
          outcome.pages.push(data);
        },
        success: (_err, stats) => resolve({ ...outcome, stats }),
        error: (error) => resolve({ ...outcome, error }),
        ...extra,
      });
    });
  }

  for (const engine of ['presto', 'trino'] as const) {
    it(`returns the rows and column names of a simple SELECT (engine: ${engine})`, async () => {
      const outcome = await execute(client(engine), SIMPLE_SQL);
      expect(outcome.error).to.equal(undefined);
      expect(outcome.stats?.state).to.equal('FINISHED');
      expect(outcome.columns?.map((c) => c.name)).to.deep.equal(SIMPLE_COLUMNS);
      // DuckDB keeps no varchar length, so 'x' is varchar rather than Presto's varchar(1).
      expect(outcome.columns?.map((c) => c.type.replace(/\(\d+\)$/, ''))).to.deep.equal(['integer', 'varchar', 'double', 'date']);
      expect(outcome.pages.flat()).to.deep.equal([SIMPLE_ROW]);
      const info = await queryInfo(server().url, outcome.queryId!);
      expect(info.state).to.equal('FINISHED');
      expect(info.session.user).to.equal('spec-user');
    });
  }

  it(`streams ${MANY_ROWS} rows over several data callbacks`, async () => {
    const outcome = await execute(client(), MANY_SQL);
    expect(outcome.error).to.equal(undefined);
    expect(outcome.stats?.state).to.equal('FINISHED');
    expect(outcome.columns?.map((c) => c.name)).to.deep.equal(['i', 's']);
    const rows = outcome.pages.flat();
    expect(rows).to.have.length(MANY_ROWS);
    expect(rows[0]).to.deep.equal(firstManyRow);
    expect(rows[rows.length - 1]).to.deep.equal(lastManyRow);
    expect(rows.every((row, i) => (row as unknown[])[0] === i)).to.equal(true);
    expect(outcome.pages.length).to.be.greaterThan(1);
  });

  for (const engine of ['presto', 'trino'] as const) {
    it(`pages as Trino: no data callback for the last response, every row once (engine: ${engine})`, async () => {
      await expectTrinoPagingThrough(server(), `memory.default.paging_presto_client_${engine}`, async (sql) => {
        const outcome = await execute(client(engine), sql);
        // presto-client calls the data callback for any `data` present, even []: the server never sends one.
        for (const page of outcome.pages) expect(page.length, sql).to.be.greaterThan(0);
        const error = outcome.error ? (outcome.error.error ?? outcome.error).errorName : undefined;
        return { rows: outcome.pages.flat().length, ...(error ? { error } : {}) };
      });
    });
  }

  it('hands a syntax error to the error callback as the server error object (SYNTAX_ERROR)', async () => {
    const outcome = await execute(client(), SYNTAX_ERROR_SQL);
    expect(outcome.stats).to.equal(undefined);
    expect(outcome.error).to.be.an('object');
    // On the POST presto-client wraps it as {message, error, code}; on a later page it passes `error` itself.
    const error = outcome.error.error ?? outcome.error;
    expect(error.errorName).to.equal('SYNTAX_ERROR');
    expect(error.errorType).to.equal('USER_ERROR');
    expect(error.errorCode).to.equal(1);
    expect(error.message).to.match(/^line 1:1: /);
    expect(outcome.error.message).to.equal(error.message);
  });

  it('cancels through the cancel callback (DELETE on the absolute nextUri): FAILED with USER_CANCELED', async () => {
    let cancel = false;
    let firstPage!: () => void;
    const firstPageArrived = new Promise<void>((resolve) => (firstPage = resolve));
    const progress: Outcome = { pages: [], states: [] };
    const running = execute(client(), ENDLESS_SQL, { cancel: () => cancel, data: () => firstPage() }, progress);
    await firstPageArrived;
    const before = await queryInfo(server().url, progress.queryId!);
    expect(before.state).to.equal('RUNNING');
    cancel = true;
    const outcome = await running;
    // Answered by presto-client once the DELETE succeeded (204); a failed DELETE reads "... cancel may fail".
    expect(outcome.error).to.deep.equal({ message: 'query fetch canceled by operation' });
    await expectUserCanceled(server().url, outcome.queryId!);
  });

  it('cancels with kill(queryId) (DELETE /v1/query/{id}): FAILED with USER_CANCELED', async () => {
    const c = client();
    let queryId: string | undefined;
    let firstPage!: () => void;
    const firstPageArrived = new Promise<void>((resolve) => (firstPage = resolve));
    const running = execute(c, ENDLESS_SQL, {
      state: (_err, id) => {
        queryId = id;
      },
      data: () => firstPage(),
    });
    await firstPageArrived;
    const before = await queryInfo(server().url, queryId!);
    expect(before.state).to.equal('RUNNING');
    const killError = await new Promise((resolve) => c.kill(queryId!, resolve));
    expect(killError).to.equal(null);
    await expectUserCanceled(server().url, queryId!);
    // The client's own polling sees the failure on its next page.
    const outcome = await running;
    expect(outcome.error?.errorName).to.equal('USER_CANCELED');
  });
});

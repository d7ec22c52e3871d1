// EXPLAIN through the engine: DuckDB plans the statement's translation, the text is Trino's (prestodb's
// for Presto headers) with the statement's real output names and types at the root, for each TYPE and
// for EXPLAIN ANALYZE; VALIDATE and IO answer Trino's shapes; errors are the statement's own.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { VivaceError } from '../../../lib/protocol/vivace-error.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

const presto = testSession({ prefix: 'X-Presto-' });
const columnsOf = (out: Awaited<ReturnType<typeof runSql>>) => out.plan.columns.map((c) => [c.name, c.type.base]);
const planText = async (engine: Engine, sql: string, session = testSession()) => {
  const out = await runSql(engine, sql, session);
  expect(columnsOf(out)).to.deep.equal([['Query Plan', 'varchar']]);
  expect(out.rows).to.have.length(1);
  return String(out.rows[0]![0]);
};

async function failure(p: Promise<unknown>): Promise<VivaceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof VivaceError) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

describe('dialect: EXPLAIN', function () {
  this.timeout(30_000);
  let engine: Engine;

  before(async () => {
    // A pool of one: EXPLAIN plans the statement again after giving its connection back.
    engine = await newEngine(1);
    await runSql(engine, 'CREATE SCHEMA memory.shop');
    await runSql(engine, 'CREATE TABLE memory.shop.items (id bigint, name varchar(20), price decimal(10,2))');
    await runSql(engine, "INSERT INTO memory.shop.items VALUES (1, 'pen', 1.50), (2, 'ink', 7.25), (3, 'pad', 3.00)");
  });
  after(() => engine.close());

  it('EXPLAIN is TYPE DISTRIBUTED for Trino clients: version, one SINGLE fragment, then Output with names and types', async () => {
    const sql = 'EXPLAIN SELECT name, count(*) AS n, sum(price) FROM memory.shop.items WHERE id > 1 GROUP BY name ORDER BY n DESC LIMIT 2';
    const lines = (await planText(engine, sql)).split('\n');
    expect(lines[0]).to.match(/^Trino version: \d+\.\d+\.\d+/);
    expect(lines.slice(1, 7)).to.deep.equal([
      'Fragment 0 [SINGLE]',
      '    Output layout: [name, n, expr]',
      '    Output partitioning: SINGLE []',
      '    Output[columnNames = [name, n, _col2]]',
      '    │   Layout: [name:varchar(20), n:bigint, expr:decimal(38,2)]',
      '    │   _col2 := expr',
    ]);
    const text = lines.join('\n');
    expect(text).to.include('└─ TopN[count = 2, orderBy = [');
    expect(text).to.include('Aggregate[keys = [');
    expect(text).to.match(/(TableScan|ScanFilter)\[table = memory:shop:items/);
    expect(text).to.not.match(/SEQ_SCAN|┌|┐/);
  });

  it('TYPE LOGICAL starts at Output, TYPE DISTRIBUTED has the fragment; both read the same tables', async () => {
    const sql = 'SELECT a.name, b.price FROM memory.shop.items a JOIN memory.shop.items b ON a.id = b.id';
    const logical = (await planText(engine, `EXPLAIN (TYPE LOGICAL) ${sql}`)).split('\n');
    expect(logical[1]).to.equal('Output[columnNames = [name, price]]');
    expect(logical[2]).to.equal('│   Layout: [name:varchar(20), price:decimal(10,2)]');
    expect(logical.join('\n')).to.include('InnerJoin[criteria = ');
    const distributed = (await planText(engine, `EXPLAIN (TYPE DISTRIBUTED) ${sql}`)).split('\n');
    expect(distributed[1]).to.equal('Fragment 0 [SINGLE]');
    expect(distributed[4]).to.equal('    Output[columnNames = [name, price]]');
  });

  it("EXPLAIN for Presto clients is prestodb's LOGICAL plan: the first line names the columns and their types", async () => {
    const text = await planText(engine, 'EXPLAIN SELECT id, name AS label, price * 2 AS doubled FROM memory.shop.items', presto);
    const first = text.split('\n')[0]!;
    expect(first).to.match(/^- Output\[PlanNodeId \d+\]\[id, label, doubled\] => \[id:bigint, label:varchar\(20\), doubled:decimal\(\d+,2\)\]$/);
    const distributed = (await planText(engine, 'EXPLAIN (TYPE DISTRIBUTED) SELECT 1 AS one', presto)).split('\n');
    expect(distributed.slice(0, 5)).to.deep.equal([
      'Fragment 0 [SINGLE]',
      '    Output layout: [one]',
      '    Output partitioning: SINGLE []',
      '    Stage Execution Strategy: UNGROUPED_EXECUTION',
      distributed[4],
    ]);
    expect(distributed[4]).to.match(/^ {4}- Output\[PlanNodeId \d+\]\[one\] => \[one:integer\]$/);
  });

  it('EXPLAIN (TYPE VALIDATE) answers one boolean column Valid, true; a bad statement fails as itself', async () => {
    const out = await runSql(engine, 'EXPLAIN (TYPE VALIDATE) SELECT * FROM memory.shop.items');
    expect(columnsOf(out)).to.deep.equal([['Valid', 'boolean']]);
    expect(out.rows).to.deep.equal([[true]]);
    expect(await failure(engine.plan('EXPLAIN (TYPE VALIDATE) SELECT nope FROM memory.shop.items', testSession()))).to.include({ errorName: 'COLUMN_NOT_FOUND' });
  });

  it("EXPLAIN (TYPE IO) answers Trino's JSON: the tables read, the table written, estimates", async () => {
    const read = JSON.parse(await planText(engine, 'EXPLAIN (TYPE IO) SELECT count(*) FROM memory.shop.items'));
    expect(read.inputTableColumnInfos).to.have.length(1);
    expect(read.inputTableColumnInfos[0].table).to.deep.equal({ catalog: 'memory', schemaTable: { schema: 'shop', table: 'items' } });
    expect(read.inputTableColumnInfos[0].constraint).to.deep.equal({ none: false, columnConstraints: [] });
    expect(read).to.not.have.property('outputTable');
    expect(Object.keys(read.estimate)).to.deep.equal(['outputRowCount', 'outputSizeInBytes', 'cpuCost', 'maxMemory', 'networkCost']);
    const written = JSON.parse(await planText(engine, 'EXPLAIN (TYPE IO) INSERT INTO memory.shop.items SELECT * FROM memory.shop.items'));
    expect(written.outputTable).to.deep.equal({ catalog: 'memory', schemaTable: { schema: 'shop', table: 'items' } });
    // Explaining an INSERT writes nothing.
    expect((await runSql(engine, 'SELECT count(*) FROM memory.shop.items')).rows).to.deep.equal([[3]]);
  });

  it('EXPLAIN ANALYZE runs the statement and prints the fragment and each node with CPU, scheduled time and output rows', async () => {
    const lines = (await planText(engine, 'EXPLAIN ANALYZE SELECT count(*) FROM memory.shop.items')).split('\n');
    expect(lines[0]).to.match(/^Trino version: /);
    expect(lines[1]).to.match(/^Queued: \S+, Analysis: \S+, Planning: \S+, Execution: \d+\.\d\d(ns|us|ms|s)$/);
    expect(lines[2]).to.equal('Fragment 0 [SINGLE]');
    expect(lines[3]).to.match(/^ {4}CPU: \S+, Scheduled: \S+, Blocked \S+ \(Input: \S+, Output: \S+\), Input: 3 rows \(\S+\); per task: avg\.: 3\.00 std\.dev\.: 0\.00, Output: 1 row \(\d+(\.\d\d)?[kMG]?B\)$/);
    expect(lines.slice(4, 8)).to.deep.equal(['    Output layout: [expr]', '    Output partitioning: SINGLE []', '    Output[columnNames = [_col0]]', '    │   Layout: [expr:bigint]']);
    expect(lines.some((l) => /^ +(?:│ +)?CPU: \S+ \(\d+\.\d\d%\), Scheduled: \S+ \(\d+\.\d\d%\), Blocked: 0\.00ns \(0\.00%\), Output: 3 rows \(/.test(l))).to.equal(true);
    const inserted = await planText(engine, 'EXPLAIN ANALYZE INSERT INTO memory.shop.items VALUES (4, \'cap\', 2.00)');
    expect(inserted).to.include('Output[columnNames = [rows]]');
    expect(inserted).to.include('Layout: [rows:bigint]');
    expect(inserted).to.include('TableWriter');
    // Like Trino's, EXPLAIN ANALYZE of an INSERT inserts.
    expect((await runSql(engine, 'SELECT count(*) FROM memory.shop.items')).rows).to.deep.equal([[4]]);
  });

  it('a data definition is explained as its own text, as Trino does; EXPLAIN ANALYZE of it is NOT_SUPPORTED', async () => {
    expect(await planText(engine, 'EXPLAIN CREATE TABLE memory.shop.later (a bigint)')).to.equal('CREATE TABLE memory.shop.later (a bigint)');
    expect((await runSql(engine, "SHOW TABLES FROM memory.shop LIKE 'later'")).rows).to.deep.equal([]);
    expect(await failure(engine.plan('EXPLAIN ANALYZE DROP TABLE memory.shop.items', testSession()))).to.include({ errorName: 'NOT_SUPPORTED' });
  });

  it("errors are the statement's own, at their place in the EXPLAIN text", async () => {
    const missing = await failure(engine.plan('EXPLAIN SELECT nope FROM memory.shop.items', testSession()));
    expect(missing).to.include({ errorName: 'COLUMN_NOT_FOUND' });
    expect(missing.message).to.match(/^line 1:16: /);
    expect(await failure(engine.plan('EXPLAIN\nSELECT * FROM memory.shop.nowhere', testSession()))).to.include({ errorName: 'TABLE_NOT_FOUND' });
    expect(await failure(engine.plan('EXPLAIN (FORMAT JSON) SELECT 1', testSession()))).to.include({ errorName: 'NOT_SUPPORTED' });
  });
});

describe('dialect: EXPLAIN ANALYZE on a fresh connection', function () {
  this.timeout(30_000);

  it('reports no more execution time than the statement took (DuckDB counts a first profile from the profiler\'s set-up)', async () => {
    const engine = await newEngine(1);
    try {
      // Time passes on the connection before its first profiled statement: work that reads no table.
      await runSql(engine, 'CREATE TABLE memory.default.t AS SELECT x FROM UNNEST(sequence(1, 10000)) AS u (x)');
      await runSql(engine, 'SELECT count(*) FROM UNNEST(sequence(1, 10000)) a CROSS JOIN UNNEST(sequence(1, 5000)) b');
      const started = performance.now();
      const text = await planText(engine, 'EXPLAIN ANALYZE SELECT count(*) FROM memory.default.t WHERE x > 5');
      const wall = (performance.now() - started) / 1000;
      const execution = /Execution: ([\d.]+)(ns|us|ms|s)\b/.exec(text);
      expect(execution, text).to.not.equal(null);
      const seconds = Number(execution![1]) / { ns: 1e9, us: 1e6, ms: 1e3, s: 1 }[execution![2] as 'ns' | 'us' | 'ms' | 's'];
      expect(seconds, text.split('\n')[1]).to.be.at.most(wall);
    } finally {
      await engine.close();
    }
  });
});

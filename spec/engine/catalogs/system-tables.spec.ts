// The `system` catalog on a real DuckDB engine fed by a fake SystemTablesSource: names, types, live rows,
// joins, the system <-> vivace_system mapping in statements and session, and the dialect statements.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { SystemTablesBinding, type SystemNodeRow, type SystemQueryRow, type SystemTaskRow } from '../../../lib/connectors/system/system-tables.js';
import { runSql, testSession } from '../engine-helpers.js';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

function queryRow(queryId: string, overrides: Partial<SystemQueryRow> = {}): SystemQueryRow {
  return {
    queryId, state: 'FINISHED', user: 'alice', source: 'cli', query: 'SELECT 1', resourceGroupId: ['global'],
    queuedTimeMs: 1, analysisTimeMs: 2, planningTimeMs: 2, created: T0, started: T0 + 3, lastHeartbeat: T0 + 4, end: T0 + 5,
    errorType: null, errorCode: null, ...overrides,
  };
}

function taskRow(queryId: string): SystemTaskRow {
  return {
    nodeId: 'coord', taskId: `${queryId}.0.0.0`, stageId: `${queryId}.0`, queryId, state: 'FINISHED',
    splits: 1, queuedSplits: 0, runningSplits: 0, completedSplits: 1, splitScheduledTimeMs: 7, splitCpuTimeMs: 6, splitBlockedTimeMs: 0,
    rawInputBytes: 10, rawInputRows: 2, processedInputBytes: 10, processedInputRows: 2, outputBytes: 5, outputRows: 1,
    physicalInputBytes: null, physicalWrittenBytes: null, created: T0, start: T0 + 3, lastHeartbeat: T0 + 5, end: T0 + 5,
  };
}

class FakeSource {
  nodeRows: SystemNodeRow[] = [
    { nodeId: 'coord', httpUri: 'http://127.0.0.1:8080', nodeVersion: '0.1.0', coordinator: true, state: 'active' },
    { nodeId: 'w1', httpUri: 'http://127.0.0.1:8081', nodeVersion: null, coordinator: false, state: 'inactive' },
  ];
  queryRows: SystemQueryRow[] = [queryRow('q1'), queryRow('q2', { state: 'FAILED', user: 'bob', errorType: 'USER_ERROR', errorCode: 'SYNTAX_ERROR', end: null })];
  nodes = () => this.nodeRows;
  queries = () => this.queryRows;
  tasks = () => this.queryRows.map((q) => taskRow(q.queryId));
}

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('system catalog (engine, fake source)', () => {
  let engine: Engine;
  let dir: string;
  let source: FakeSource;
  const binding = new SystemTablesBinding();
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-system-spec-'));
    engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections: 2, tpch: false, system: binding });
  });
  beforeEach(() => {
    source = new FakeSource();
    binding.bind(source);
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('system.runtime.nodes has Trino’s columns and the source’s rows', async () => {
    const out = await runSql(engine, 'SELECT * FROM system.runtime.nodes ORDER BY node_id');
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['node_id', 'http_uri', 'node_version', 'coordinator', 'state']);
    expect(out.plan.columns[3]!.type).to.deep.equal({ base: 'boolean' });
    expect(out.rows).to.deep.equal([
      ['coord', 'http://127.0.0.1:8080', '0.1.0', true, 'active'],
      ['w1', 'http://127.0.0.1:8081', null, false, 'inactive'],
    ]);
  });

  it('system.runtime.queries has Trino’s columns, bigint times and UTC timestamps', async () => {
    const out = await runSql(engine, `SELECT * FROM system.runtime.queries WHERE query_id = 'q2'`);
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal([
      'query_id', 'state', 'user', 'source', 'query', 'resource_group_id', 'queued_time_ms', 'analysis_time_ms', 'planning_time_ms',
      'created', 'started', 'last_heartbeat', 'end', 'error_type', 'error_code',
    ]);
    const type = (name: string) => out.plan.columns.find((c) => c.name === name)!.type;
    expect(type('queued_time_ms')).to.deep.equal({ base: 'bigint' });
    expect(type('resource_group_id')).to.deep.equal({ base: 'array', params: [{ base: 'varchar' }] });
    expect(type('created')).to.deep.include({ base: 'timestamp with time zone' });
    expect(out.rows).to.deep.equal([
      ['q2', 'FAILED', 'bob', 'cli', 'SELECT 1', ['global'], 1, 2, 2,
        '2024-01-02 03:04:05.678000 UTC', '2024-01-02 03:04:05.681000 UTC', '2024-01-02 03:04:05.682000 UTC', null, 'USER_ERROR', 'SYNTAX_ERROR'],
    ]);
  });

  it('system.runtime.tasks has Trino’s columns', async () => {
    const out = await runSql(engine, 'SELECT task_id, stage_id, state, splits, output_rows, physical_written_bytes FROM system.runtime.tasks ORDER BY 1');
    expect(out.rows).to.deep.equal([['q1.0.0.0', 'q1.0', 'FINISHED', 1, 1, null], ['q2.0.0.0', 'q2.0', 'FINISHED', 1, 1, null]]);
    const all = await runSql(engine, 'SELECT * FROM system.runtime.tasks');
    expect(all.plan.columns).to.have.length(24);
  });

  it('reads rows when the statement runs: the same (cached) statement sees new rows', async () => {
    const sql = 'SELECT count(*) FROM system.runtime.queries';
    expect((await runSql(engine, sql)).rows).to.deep.equal([[2]]);
    source.queryRows.push(queryRow('q3'));
    expect((await runSql(engine, sql)).rows).to.deep.equal([[3]]);
    source.queryRows = Array.from({ length: 5000 }, (_, i) => queryRow(`many${i}`));
    expect((await runSql(engine, sql)).rows).to.deep.equal([[5000]]);
  });

  it('is empty while nothing is bound', async () => {
    binding.unbind();
    expect((await runSql(engine, 'SELECT count(*) FROM system.runtime.nodes')).rows).to.deep.equal([[0]]);
  });

  it('joins system tables with each other and with memory tables', async () => {
    const joined = await runSql(engine, 'SELECT q.query_id FROM system.runtime.queries q JOIN system.runtime.nodes n ON n.coordinator ORDER BY 1');
    expect(joined.rows).to.deep.equal([['q1'], ['q2']]);
    await runSql(engine, 'CREATE TABLE memory.default.owners (usr VARCHAR, team VARCHAR)');
    await runSql(engine, `INSERT INTO memory.default.owners VALUES ('alice', 'red'), ('bob', 'blue')`);
    const teams = await runSql(engine, 'SELECT o.team, q.state FROM memory.default.owners o JOIN system.runtime.queries q ON q."user" = o.usr ORDER BY 1');
    expect(teams.rows).to.deep.equal([['blue', 'FAILED'], ['red', 'FINISHED']]);
    const copied = await runSql(engine, 'CREATE TABLE memory.default.snapshot AS SELECT query_id FROM system.runtime.queries');
    expect(copied.updateCount).to.equal(2);
  });

  it('maps quoted and upper-case catalog names, and only in name position', async () => {
    expect((await runSql(engine, 'SELECT count(*) FROM "system".runtime.nodes')).rows).to.deep.equal([[2]]);
    expect((await runSql(engine, 'SELECT count(*) FROM SYSTEM.RUNTIME.NODES')).rows).to.deep.equal([[2]]);
    const literal = await runSql(engine, `SELECT 'system.runtime.nodes' AS s /* system.runtime.nodes */ FROM system.runtime.nodes n WHERE n.coordinator`);
    expect(literal.rows).to.deep.equal([['system.runtime.nodes']]);
    expect((await runSql(engine, 'SELECT system.runtime.nodes.node_id FROM system.runtime.nodes WHERE coordinator')).rows).to.deep.equal([['coord']]);
  });

  it('works as the session catalog, and USE system.runtime', async () => {
    const session = testSession({ catalog: 'system', schema: 'runtime' });
    expect((await runSql(engine, 'SELECT count(*) FROM nodes', session)).rows).to.deep.equal([[2]]);
    expect((await runSql(engine, 'SELECT count(*) FROM metadata.catalogs', session)).rows).to.deep.equal([[2]]);
    const use = await runSql(engine, 'USE system.runtime');
    expect(use.plan.sessionUpdates).to.deep.equal({ setCatalog: 'system', setSchema: 'runtime' });
    // As in Trino, a session schema that does not exist fails the statements that name a table in it.
    expect(await failure(engine.plan('SELECT * FROM nodes', testSession({ catalog: 'system', schema: 'nope' })))).to.include({ errorName: 'SCHEMA_NOT_FOUND' });
  });

  it('is listed by SHOW CATALOGS / SCHEMAS / TABLES, DESCRIBE and information_schema', async () => {
    expect((await runSql(engine, 'SHOW CATALOGS')).rows).to.deep.equal([['memory'], ['system']]);
    expect((await runSql(engine, 'SHOW SCHEMAS FROM system')).rows).to.deep.equal([['information_schema'], ['jdbc'], ['metadata'], ['runtime']]);
    expect((await runSql(engine, 'SHOW TABLES FROM system.runtime')).rows).to.deep.equal([['completed_queries'], ['nodes'], ['queries'], ['tasks']]);
    const described = await runSql(engine, 'DESCRIBE system.runtime.queries');
    expect(described.rows.slice(0, 3).map((r) => r.slice(0, 2))).to.deep.equal([['query_id', 'varchar'], ['state', 'varchar'], ['user', 'varchar']]);
    const tables = await runSql(engine, `SELECT table_name FROM system.information_schema.tables WHERE table_schema = 'runtime' ORDER BY 1`);
    expect(tables.rows).to.deep.equal([['completed_queries'], ['nodes'], ['queries'], ['tasks']]);
  });

  it('system.metadata.catalogs names each catalog and its connector', async () => {
    const out = await runSql(engine, 'SELECT * FROM system.metadata.catalogs ORDER BY 1');
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['catalog_name', 'connector_id', 'connector_name']);
    expect(out.rows).to.deep.equal([['memory', 'memory', 'memory'], ['system', 'system', 'system']]);
  });

  it('is read-only', async () => {
    const err = await failure(runSql(engine, 'CREATE TABLE system.runtime.extra (a INTEGER)'));
    expect(err).to.include({ errorName: 'NOT_SUPPORTED' });
    expect(String((err as Error).message)).to.equal("line 1:14: Catalog 'system' is read-only: this connector does not support writes");
    expect((await runSql(engine, 'SHOW TABLES FROM system.runtime')).rows).to.have.length(4);
  });

  it('points errors after a system name at the SQL as written (DuckDB sees "vivace_system")', async () => {
    const column = await failure(runSql(engine, 'SELECT * FROM system.runtime.nodes WHERE nope = 1'));
    expect(column).to.include({ errorName: 'COLUMN_NOT_FOUND' });
    expect((column as { errorLocation?: unknown }).errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 42 });
    const syntax = await failure(runSql(engine, 'SELECT * FROM system.runtime.nodes WHERE WHERE'));
    expect(syntax).to.include({ errorName: 'SYNTAX_ERROR' });
    expect((syntax as { errorLocation?: unknown }).errorLocation).to.deep.equal({ lineNumber: 1, columnNumber: 42 });
  });

  it('a failing source fails the statement, not the process', async () => {
    binding.bind({ nodes: () => { throw new Error('boom'); }, queries: () => [], tasks: () => [] });
    const err = await failure(runSql(engine, 'SELECT * FROM system.runtime.nodes'));
    expect(err).to.include({ errorName: 'GENERIC_INTERNAL_ERROR', message: 'Reading system.runtime.nodes failed: boom' });
    expect((await runSql(engine, 'SELECT 1 AS x')).rows).to.deep.equal([[1]]);
  });

  it('leaves its database file in the temp directory only while open', () => {
    expect(readdirSync(dir).filter((f) => f.startsWith('vivace-system-'))).to.have.length(1);
  });
});

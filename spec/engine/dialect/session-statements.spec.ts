// USE, SET SESSION, RESET SESSION, SHOW SESSION through the engine, and the session property registry.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { sessionPropertyValue, validateSessionProperties } from '../../../lib/protocol/session-properties.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('dialect: session statements', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(1);
    await runSql(engine, 'CREATE SCHEMA memory.s2');
  });
  after(() => engine.close());

  it('USE c.s and USE s report Set-Catalog and Set-Schema', async () => {
    const out = await runSql(engine, 'USE memory.s2');
    expect([out.plan.updateType, out.plan.columns, out.rows]).to.deep.equal(['USE', [], []]);
    expect(out.plan.sessionUpdates).to.deep.equal({ setCatalog: 'memory', setSchema: 's2' });
    const bare = await runSql(engine, 'use "S2";', testSession({ catalog: 'memory', schema: 'default' }));
    expect(bare.plan.sessionUpdates).to.deep.equal({ setCatalog: 'memory', setSchema: 's2' });
  });

  it('USE of a missing catalog or schema fails', async () => {
    expect(await failure(engine.plan('USE nope.x', testSession()))).to.include({ errorName: 'CATALOG_NOT_FOUND' });
    expect(await failure(engine.plan('USE memory.nope', testSession()))).to.include({ errorName: 'SCHEMA_NOT_FOUND', message: "Schema 'memory.nope' does not exist" });
  });

  it('SET SESSION validates and reports the value as text', async () => {
    const out = await runSql(engine, "SET SESSION query_max_run_time = '10m'");
    expect([out.plan.updateType, out.plan.columns, out.rows]).to.deep.equal(['SET SESSION', [], []]);
    expect(out.plan.sessionUpdates).to.deep.equal({ setSessionProperties: { query_max_run_time: '10m' } });
    expect((await runSql(engine, 'SET SESSION spill_enabled = TRUE')).plan.sessionUpdates).to.deep.equal({ setSessionProperties: { spill_enabled: 'true' } });
    expect((await runSql(engine, 'SET SESSION task_concurrency = 8')).plan.sessionUpdates).to.deep.equal({ setSessionProperties: { task_concurrency: '8' } });
    expect((await runSql(engine, "SET SESSION query_max_memory = '1' || 'GB'")).plan.sessionUpdates).to.deep.equal({ setSessionProperties: { query_max_memory: '1GB' } });
    expect((await runSql(engine, "SET SESSION join_distribution_type = 'broadcast'")).plan.sessionUpdates).to.deep.equal({ setSessionProperties: { join_distribution_type: 'BROADCAST' } });
  });

  it('SET SESSION of an unknown property or a bad value is INVALID_SESSION_PROPERTY', async () => {
    const unknown = await failure(engine.plan("SET SESSION no_such_thing = 'x'", testSession()));
    expect(unknown).to.include({ errorName: 'INVALID_SESSION_PROPERTY', message: "Session property 'no_such_thing' does not exist" });
    const bad = (await failure(engine.plan("SET SESSION query_max_run_time = '10 parsecs'", testSession()))) as Error;
    expect(bad).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
    expect(bad.message).to.match(/^Invalid value '10 parsecs' for session property 'query_max_run_time'/);
    expect(await failure(engine.plan('SET SESSION task_concurrency = 3', testSession()))).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
    expect(await failure(engine.plan("SET SESSION memory.x = 'y'", testSession()))).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
  });

  it('SET SESSION computes its value from literals and runs nothing a crafted value smuggles in', async () => {
    expect((await runSql(engine, 'SET SESSION task_concurrency = +16')).plan.sessionUpdates).to.deep.equal({ setSessionProperties: { task_concurrency: '16' } });
    // Not one statement in Trino's grammar: the parser refuses it before anything runs.
    const smuggling = "1) AS VARCHAR); CREATE TABLE smuggled AS SELECT 1; SELECT CAST((1";
    expect(await failure(engine.plan(`SET SESSION query_max_run_time = ${smuggling}`, testSession()))).to.include({ errorName: 'SYNTAX_ERROR' });
    for (const value of [
      "(SELECT 'x')",
      'lower(\'10m\')',
      "'1' || (SELECT '0m')",
      'query_max_run_time',
    ]) {
      expect(await failure(engine.plan(`SET SESSION query_max_run_time = ${value}`, testSession())), value).to.include({ errorName: 'NOT_SUPPORTED' });
    }
    expect(await failure(engine.plan('SELECT * FROM smuggled', testSession()))).to.include({ errorName: 'TABLE_NOT_FOUND' });
  });

  it('RESET SESSION reports Clear-Session', async () => {
    const out = await runSql(engine, 'RESET SESSION query_max_run_time');
    expect([out.plan.updateType, out.plan.sessionUpdates]).to.deep.equal(['RESET SESSION', { resetSessionProperties: ['query_max_run_time'] }]);
    expect(await failure(engine.plan('RESET SESSION nope', testSession()))).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
  });

  it('SHOW SESSION lists properties with the session value and the default', async () => {
    const out = await runSql(engine, "SHOW SESSION LIKE 'query_max%'", testSession({ properties: { query_max_run_time: '5m' } }));
    expect(out.plan.columns.map((c) => c.name)).to.deep.equal(['Name', 'Value', 'Default', 'Type', 'Description']);
    expect(out.rows.map((r) => r.slice(0, 4))).to.deep.equal([
      ['query_max_execution_time', '100.00d', '100.00d', 'varchar'],
      ['query_max_memory', '20GB', '20GB', 'varchar'],
      ['query_max_planning_time', '10.00m', '10.00m', 'varchar'],
      ['query_max_run_time', '5m', '100.00d', 'varchar'],
    ]);
    expect((await runSql(engine, 'SHOW SESSION')).rows.length).to.be.greaterThan(5);
  });

  describe('session property registry', () => {
    it('sessionPropertyValue decodes durations, sizes and booleans, with defaults', () => {
      const session = testSession({ properties: { query_max_run_time: '10m', query_max_memory: '1GB', spill_enabled: 'TRUE' } });
      expect(sessionPropertyValue(session, 'query_max_run_time')).to.equal(600_000);
      expect(sessionPropertyValue(session, 'query_max_memory')).to.equal(1024 ** 3);
      expect(sessionPropertyValue(session, 'spill_enabled')).to.equal(true);
      expect(sessionPropertyValue(testSession(), 'query_max_run_time')).to.equal(100 * 86_400_000);
      expect(sessionPropertyValue(testSession(), 'target_result_size')).to.equal(1024 * 1024);
    });

    it('validateSessionProperties rejects unknown names and bad values', () => {
      expect(() => validateSessionProperties({ query_max_run_time: '1h', query_priority: '2' })).not.to.throw();
      expect(() => validateSessionProperties({ nope: '1' })).to.throw(/Session property 'nope' does not exist/);
      expect(() => validateSessionProperties({ target_result_size: '1GB' })).to.throw(/must not exceed 128MB/);
      expect(() => validateSessionProperties({ query_priority: '0' })).to.throw(/positive integer/);
    });
  });
});

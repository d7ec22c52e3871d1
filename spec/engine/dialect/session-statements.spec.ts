// USE, SET SESSION, RESET SESSION, SHOW SESSION through the engine, and the session property registry.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import {
  parseJavaDouble,
  sessionPropertyDefinitions,
  sessionPropertyValue,
  validateSessionProperties,
  validateSessionProperty,
} from '../../../lib/protocol/session-properties.js';
import { PRESTO_SESSION_PROPERTIES, TRINO_SESSION_PROPERTIES } from '../../../lib/protocol/system-session-property-data.js';
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
    const rows = out.rows.map((r) => r.slice(0, 4));
    expect(rows).to.deep.include.members([
      ['query_max_execution_time', '100.00d', '100.00d', 'varchar'],
      ['query_max_planning_time', '10.00m', '10.00m', 'varchar'],
      ['query_max_run_time', '5m', '100.00d', 'varchar'],
      ['query_max_cpu_time', '1000000000.00d', '1000000000.00d', 'varchar'],
    ]);
    expect(rows.every((r) => String(r[0]).startsWith('query_max'))).to.equal(true);
    // Hidden upstream (query_max_memory, query_max_stage_count, ...): left out, as Trino leaves them out.
    expect(rows.map((r) => r[0])).not.to.include.members(['query_max_memory']);
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

    it('every Trino and Presto property is accepted by SET SESSION with its default, and RESET SESSION', async () => {
      const all = [...TRINO_SESSION_PROPERTIES, ...PRESTO_SESSION_PROPERTIES];
      expect(new Set(TRINO_SESSION_PROPERTIES.map((p) => p.name)).size).to.equal(TRINO_SESSION_PROPERTIES.length);
      expect(new Set(PRESTO_SESSION_PROPERTIES.map((p) => p.name)).size).to.equal(PRESTO_SESSION_PROPERTIES.length);
      // legacy_materialized_views refuses every value under upstream's default configuration.
      for (const p of all.filter((d) => d.refused === undefined)) {
        const sample = sampleValue(p.type, p.kind, p.defaultValue);
        const literal = p.type === 'varchar' ? `'${sample}'` : sample;
        const out = await runSql(engine, `SET SESSION ${p.name.includes('-') ? `"${p.name}"` : p.name} = ${literal}`);
        expect(Object.keys(out.plan.sessionUpdates?.setSessionProperties ?? {}), p.name).to.deep.equal([p.name]);
        expect(() => validateSessionProperties({ [p.name]: sample }), p.name).not.to.throw();
      }
      expect((await runSql(engine, 'RESET SESSION legacy_unnest')).plan.sessionUpdates).to.deep.equal({ resetSessionProperties: ['legacy_unnest'] });
    });

    it('SET SESSION of a kept property normalizes the value as upstream prints it', async () => {
      const set = async (sql: string) => (await runSql(engine, sql)).plan.sessionUpdates?.setSessionProperties;
      expect(await set('SET SESSION legacy_unnest = true')).to.deep.equal({ legacy_unnest: 'true' });
      expect(await set("SET SESSION exchange_compression_codec = 'lz4'")).to.deep.equal({ exchange_compression_codec: 'LZ4' });
      expect(await set('SET SESSION max_hash_partition_count = 64')).to.deep.equal({ max_hash_partition_count: '64' });
      expect(await set("SET SESSION join_max_broadcast_table_size = '10MB'")).to.deep.equal({ join_max_broadcast_table_size: '10MB' });
      expect(await set("SET SESSION time_zone_id = '+05:30'")).to.deep.equal({ time_zone_id: '+05:30' });
    });

    it('a kept property refuses a value of the wrong type with INVALID_SESSION_PROPERTY', async () => {
      for (const [sql, detail] of [
        ["SET SESSION legacy_unnest = 'maybe'", /\(boolean\): must be true or false$/],
        ["SET SESSION max_hash_partition_count = 'many'", /\(integer\): must be an integer$/],
        ['SET SESSION max_hash_partition_count = 0', /must be equal or greater than 1$/],
        ['SET SESSION max_hash_partition_count = 2147483648', /out of range for integer$/],
        ["SET SESSION join_multi_clause_independence_factor = 'x'", /\(double\): must be a double$/],
        ['SET SESSION join_multi_clause_independence_factor = 1.5', /must be equal or less than 1$/],
        ["SET SESSION exchange_compression_codec = 'brotli'", /must be one of NONE, LZ4, ZSTD/],
        ["SET SESSION query_max_cpu_time = 'forever'", /^Invalid value 'forever' for session property 'query_max_cpu_time' \(varchar\)/],
        ["SET SESSION join_max_broadcast_table_size = 'big'", /\(varchar\)/],
        ["SET SESSION time_zone_id = 'Mars/Olympus'", /Time zone not supported/],
        ['SET SESSION task_writer_count = 3', /must be a power of 2$/],
      ] as const) {
        const err = (await failure(engine.plan(sql, testSession()))) as Error & { errorName?: string };
        expect(err.errorName, sql).to.equal('INVALID_SESSION_PROPERTY');
        expect(err.message, sql).to.match(detail);
      }
      // A codec only Presto has is kept even when the Trino reading refuses it.
      expect(validateSessionProperty('exchange_compression_codec', 'snappy')).to.equal('SNAPPY');
    });

    it('an unknown name is INVALID_SESSION_PROPERTY, through SET, RESET and the header', async () => {
      for (const sql of ["SET SESSION legacy_unnest_ = 'true'", 'RESET SESSION no_such_property', 'SET SESSION memory.legacy_unnest = true']) {
        expect(await failure(engine.plan(sql, testSession())), sql).to.include({ errorName: 'INVALID_SESSION_PROPERTY' });
      }
      expect(() => validateSessionProperties({ legacy_unnest: 'true', optimize_hash_generations: 'true' }))
        .to.throw(/Session property 'optimize_hash_generations' does not exist/);
    });

    it('SHOW SESSION lists every property once, in the dialect of the request', async () => {
      const trino = sessionPropertyDefinitions('trino');
      const names = trino.map((d) => d.name);
      expect(names).to.deep.equal([...new Set(names)].sort());
      expect(names).to.include.members(['legacy_unnest', 'retry_initial_delay', 'query_max_run_time', 'spill_enabled']);
      expect(names).not.to.include.members(['retry_policy']);
      const concurrency = (dialect: 'trino' | 'presto') => sessionPropertyDefinitions(dialect).find((d) => d.name === 'exchange_compression_codec');
      expect(concurrency('trino')?.dialects).to.deep.equal(['trino', 'presto']);
      expect(sessionPropertyDefinitions('presto').find((d) => d.name === 'execution_policy')?.defaultValue).to.equal('all-at-once');
      expect(trino.find((d) => d.name === 'execution_policy')?.defaultValue).to.equal('phased');
      const presto = await runSql(engine, "SHOW SESSION LIKE 'legacy\\_unnest' ESCAPE '\\'", testSession({ prefix: 'X-Presto-', properties: { legacy_unnest: 'true' } }));
      expect(presto.rows.map((r) => r.slice(0, 4))).to.deep.equal([['legacy_unnest', 'true', 'false', 'boolean']]);
    });

    it('parseJavaDouble reads what Double.valueOf reads, in linear time', () => {
      for (const [text, n] of [['1', 1], ['-2.5', -2.5], ['.5', 0.5], ['5.', 5], ['1e3', 1000], ['2.5E-1', 0.25], ['3d', 3], ['NaN', NaN], ['-Infinity', -Infinity]] as const) {
        expect(parseJavaDouble(text), text).to.deep.equal(n);
      }
      for (const text of ['', '.', 'e5', '1e', '1.2.3', '0x10', '1 2', '--1', 'inf']) expect(() => parseJavaDouble(text), text).to.throw('must be a double');
      const started = performance.now();
      expect(() => parseJavaDouble('1'.repeat(200_000) + 'x')).to.throw();
      expect(() => parseJavaDouble('1e' + '1'.repeat(200_000) + '.')).to.throw();
      expect(performance.now() - started).to.be.lessThan(500);
    });
  });
});

/** A valid value of a property's type: its default, or a plain one when it has none. */
function sampleValue(type: string, kind: unknown, defaultValue: string | null): string {
  if (defaultValue !== null && defaultValue !== '') return defaultValue;
  if (type === 'boolean') return 'true';
  if (type === 'integer' || type === 'bigint') return '8';
  if (type === 'double') return '0.5';
  if (kind === 'duration') return '1m';
  if (kind === 'size') return '1MB';
  if (kind === 'zone') return 'UTC';
  if (Array.isArray(kind)) return String(kind[0]);
  return 'x';
}

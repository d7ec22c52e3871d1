// Attacks on a real server by an anonymous client: read or write a host file, change the engine, or change
// what another user sees. A canary file holds a random secret that must appear in no response, no file
// may appear where a statement asked to write one, and another user's results stay the same.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';
import { javaEncode, PrestoSession } from '../support/presto-session.js';

/** Every statement here must fail as a user's mistake, leak nothing and change nothing. */
function attacks(canary: string, outside: string): string[] {
  const file = (name: string) => join(outside, name);
  const q = (s: string) => `'${s.split("'").join("''")}'`;
  const reads = [
    `SELECT * FROM read_csv(${q(canary)})`,
    `SELECT * FROM read_csv_auto(${q(canary)})`,
    `SELECT * FROM READ_CSV(${q(canary)})`,
    `SELECT * FROM "read_csv"(${q(canary)})`,
    `SELECT content FROM read_text(${q(canary)})`,
    `SELECT content FROM read_blob(${q(canary)})`,
    `SELECT * FROM read_json(${q(canary)})`,
    `SELECT * FROM read_parquet(${q(canary)})`,
    `SELECT * FROM parquet_scan(${q(canary)})`,
    `SELECT * FROM sniff_csv(${q(canary)})`,
    `SELECT * FROM glob(${q(`${outside}/*`)})`,
    `SELECT * FROM ${q(canary)}`,
    `SELECT * FROM "${canary}"`,
    `FROM ${q(canary)}`,
    `SELECT (SELECT content FROM read_text(${q(canary)}))`,
    `WITH x AS (SELECT content FROM read_text(${q(canary)})) SELECT * FROM x`,
    `SELECT * FROM (SELECT content FROM read_text(${q(canary)})) t`,
    `SELECT system.main.read_text(${q(canary)})`,
    `SELECT * FROM system.main.read_text(${q(canary)})`,
    `SELECT * FROM main.read_text(${q(canary)})`,
    `SELECT * FROM TABLE(read_text(${q(canary)}))`,
    `SELECT x FROM UNNEST(ARRAY[1]) AS t(x) WHERE EXISTS (SELECT 1 FROM read_text(${q(canary)}))`,
    `SELECT transform(ARRAY[1], x -> (SELECT content FROM read_text(${q(canary)})))`,
    `EXPLAIN SELECT * FROM read_text(${q(canary)})`,
    `EXPLAIN ANALYZE SELECT * FROM read_text(${q(canary)})`,
    `DESCRIBE SELECT * FROM read_text(${q(canary)})`,
    `CREATE VIEW memory.default.leak AS SELECT content FROM read_text(${q(canary)})`,
    `CREATE TABLE memory.default.leak2 AS SELECT content FROM read_text(${q(canary)})`,
    `INSERT INTO memory.default.victim SELECT 1 FROM read_text(${q(canary)})`,
    `PREPARE p FROM SELECT content FROM read_text(${q(canary)})`,
    `EXECUTE IMMEDIATE ${q(`SELECT content FROM read_text(${q(canary)})`)}`,
    `SELECT getenv('HOME')`,
    `SELECT current_setting('allowed_directories')`,
    'SELECT * FROM duckdb_settings()',
    'SELECT * FROM duckdb_extensions()',
    "SELECT * FROM query('SELECT 1')",
    "SELECT json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
  ];
  const writes = [
    `COPY (SELECT 1) TO ${q(file('copy.csv'))}`,
    `COPY memory.default.victim TO ${q(file('copy2.csv'))}`,
    `EXPORT DATABASE ${q(file('export'))}`,
    `ATTACH ${q(file('attached.db'))} AS attached`,
    `EXPLAIN SELECT 1; COPY (SELECT 1) TO ${q(file('smuggled.csv'))}`,
    `SELECT 1; COPY (SELECT 1) TO ${q(file('smuggled2.csv'))}`,
    `SET SESSION query_max_run_time = 1) AS VARCHAR); COPY (SELECT 1) TO ${q(file('smuggled3.csv'))}; SELECT CAST((1`,
    `SET SESSION query_max_run_time = (SELECT content FROM read_text(${q(canary)}))`,
    // Trino reads E'...' as a literal of type E; DuckDB as an escape string ending early, then two more statements.
    `SELECT E'\\'' ; COPY (SELECT 42) TO $$${file('escape.csv')}$$ ; SELECT $$' AS x --$$`,
    `SELECT CAST(x AS varchar) FROM (SELECT 1 AS x) t WHERE $$a$$ = 'a'`,
    // Names and literals as the translation prints them: quoted, escaped, one identifier or string each.
    `SELECT "x""; COPY (SELECT 1) TO ${q(file('ident.csv'))}; --" FROM memory.default.victim`,
    `SELECT 1 FROM memory."default"."victim""; COPY (SELECT 1) TO ${q(file('ident2.csv'))}; --"`,
    `SELECT 1 FROM "memory"".""default"."victim"`,
    `SELECT DECIMAL '1''); COPY (SELECT 1) TO ${q(file('literal.csv'))}; --'`,
    `SELECT INTERVAL '1-2''); COPY (SELECT 1) TO ${q(file('interval.csv'))}; --' YEAR TO MONTH`,
    `SELECT CAST(x AS row("a"" VARCHAR); COPY (SELECT 1) TO '/tmp/y'; --" bigint)) FROM (VALUES 1) t(x)`,
  ];
  const engine = [
    "SET memory_limit = '100GB'",
    'SET threads = 1',
    "SET default_order = 'DESC'",
    'SET enable_external_access = true',
    'PRAGMA threads = 1',
    'RESET threads',
    'INSTALL httpfs',
    'LOAD httpfs',
    `LOAD ${q(canary)}`,
    "CREATE OR REPLACE MACRO upper(s) AS 'pwned'",
    "CREATE OR REPLACE TEMP MACRO upper(s) AS 'pwned'",
    "CREATE MACRO memory.default.m(s) AS 'pwned'",
    'CREATE FUNCTION memory.default.f() RETURNS bigint RETURN 1',
    "ATTACH ':memory:' AS other",
    'DETACH tpch',
    'DETACH DATABASE IF EXISTS "TPCH"',
    'DETACH memory',
    'USE system.main',
    'CREATE OR REPLACE TABLE "TPCH"."TINY"."REGION" AS SELECT 1 AS x',
    'CREATE OR REPLACE VIEW tpch.tiny.region AS SELECT 1 AS x',
    'INSERT INTO "tpch".tiny.region VALUES (9, \'X\', \'y\')',
    'DELETE FROM TPCH.TINY.REGION',
    'DROP VIEW tpch.tiny.region',
    'DROP TABLE "tpch"."tiny"."region"',
    'DROP SCHEMA tpch.tiny CASCADE',
    'CREATE SCHEMA tpch.mine',
    'CREATE TABLE system.runtime.mine (a bigint)',
    'DROP SCHEMA memory."default" CASCADE',
    'DROP SCHEMA "MEMORY"."DEFAULT" CASCADE',
    'DROP SCHEMA memory.default',
    'PREPARE p FROM EXECUTE p',
    'CHECKPOINT',
    'VACUUM',
    'CALL pragma_version()',
  ];
  return [...reads, ...writes, ...engine];
}

describe('security: SQL containment (real server, anonymous client)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let outside: string;
  let canary: string;
  let secret: string;
  const victim = () => new PrestoSession(server.url, { user: 'victim', catalog: 'memory', schema: 'default' });
  const mallory = () => new PrestoSession(server.url, { user: 'mallory', catalog: 'memory', schema: 'default' });

  /** What another user sees: the values every attack must leave as they were. */
  const victimView = async () => {
    const v = victim();
    return {
      region: (await v.ok('SELECT count(*), min(name) FROM tpch.tiny.region')).rows,
      table: (await v.ok('SELECT * FROM memory.default.victim ORDER BY a')).rows,
      upper: (await v.ok("SELECT upper('a'), lower('B')")).rows,
      order: (await v.ok('SELECT a FROM (VALUES 2, 1, 3) AS t(a) ORDER BY a')).rows,
      catalogs: (await v.ok('SHOW CATALOGS')).rows,
      schemas: (await v.ok('SHOW SCHEMAS FROM memory')).rows,
    };
  };

  before(async () => {
    outside = mkdtempSync(join(tmpdir(), 'vivace-attack-'));
    secret = randomBytes(16).toString('hex');
    canary = join(outside, 'canary.csv');
    writeFileSync(canary, `secret\n${secret}\n`);
    server = await startTestServer({ engine: await createTestEngine(4) });
    await victim().ok('CREATE TABLE memory.default.victim (a bigint)');
    await victim().ok('INSERT INTO memory.default.victim VALUES (1), (2)');
  });

  after(async () => {
    await server?.stop();
    rmSync(outside, { recursive: true, force: true });
  });

  it('refuses every attack as a user error, leaks no secret, writes no file and changes nothing another user sees', async () => {
    const before = await victimView();
    const list = attacks(canary, outside);
    const leaks: string[] = [];
    const accepted: string[] = [];
    for (const sql of list) {
      const out = await mallory().execute(sql);
      const text = JSON.stringify(out.responses);
      if (text.includes(secret)) leaks.push(sql);
      if (out.error === undefined || out.error.errorType !== 'USER_ERROR') accepted.push(`${sql} -> ${out.error ? `${out.error.errorType} ${out.error.errorName}: ${out.error.message}` : 'FINISHED'}`);
    }
    expect(leaks, 'statements that leaked the secret').to.deep.equal([]);
    expect(accepted, 'statements not refused as a user error').to.deep.equal([]);
    expect(readdirSync(outside)).to.deep.equal(['canary.csv']);
    expect(await victimView()).to.deep.equal(before);
  });

  it('refuses the same through prepared statements: PREPARE/EXECUTE with the path as a parameter and the Prepared-Statement header', async () => {
    const m = mallory();
    const viaParameter = await m.execute("PREPARE p FROM SELECT content FROM read_text(?)");
    expect(viaParameter.error?.errorType).to.equal('USER_ERROR');
    m.preparedStatements.set('h', `SELECT content FROM read_text('${canary}')`);
    const viaHeader = await m.execute('EXECUTE h');
    expect(viaHeader.error?.errorType).to.equal('USER_ERROR');
    expect(JSON.stringify(viaHeader.responses)).not.to.contain(secret);
    // A parameter is spliced in as its parsed tree printed back, and the result is gated again.
    m.preparedStatements.clear();
    m.preparedStatements.set('q', 'SELECT ?');
    for (const using of [`(SELECT content FROM read_text('${canary}'))`, "1) ; COPY (SELECT 1) TO '/tmp/x'; SELECT (1"]) {
      const out = await m.execute(`EXECUTE q USING ${using}`);
      expect(out.error?.errorType, using).to.equal('USER_ERROR');
      expect(JSON.stringify(out.responses)).not.to.contain(secret);
    }
    expect((await m.ok("EXECUTE q USING 'it''s'")).rows).to.deep.equal([["it's"]]);
    // Pasted as written, the comment would swallow the closing parenthesis; as a tree it is just 1.
    expect((await m.ok("EXECUTE q USING 1 -- ) , read_text('x')")).rows).to.deep.equal([[1]]);
    m.preparedStatements.clear();
    m.preparedStatements.set('loop', 'EXECUTE loop');
    const loop = await m.execute('EXECUTE loop');
    expect(loop.error?.message).to.equal('Invalid statement type for prepared statement: EXECUTE');
    expect(javaEncode('p=EXECUTE p')).to.be.a('string');
  });

  it('prints session names as quoted names: a catalog or schema header cannot smuggle SQL', async () => {
    for (const [catalog, schema] of [['memory', `default"; COPY (SELECT 1) TO '${join(outside, 'schema.csv')}'; --`], [`memory"."default"; --`, 'default']]) {
      const m = new PrestoSession(server.url, { user: 'mallory', catalog, schema });
      const out = await m.execute('SELECT * FROM victim');
      expect(out.error?.errorType, `${catalog} / ${schema}`).to.equal('USER_ERROR');
    }
    expect(existsSync(join(outside, 'schema.csv'))).to.equal(false);
  });

  it('keeps every request its own: two statements in one request are a syntax error, whatever wraps them', async () => {
    for (const sql of ['SELECT 1; SELECT 2', 'EXPLAIN SELECT 1; SELECT 2', 'SELECT 1;;; SELECT 2', 'SELECT 1 /* ; */ ; SELECT 2']) {
      expect((await mallory().execute(sql)).error, sql).to.include({ errorName: 'SYNTAX_ERROR' });
    }
    expect((await mallory().ok('SELECT 1;')).rows).to.deep.equal([[1]]);
  });

  it('leaves no file behind for any write attempt', () => {
    for (const name of ['copy.csv', 'copy2.csv', 'export', 'attached.db', 'smuggled.csv', 'smuggled2.csv', 'smuggled3.csv', 'escape.csv', 'ident.csv', 'ident2.csv', 'literal.csv', 'interval.csv']) {
      expect(existsSync(join(outside, name)), name).to.equal(false);
    }
  });
});

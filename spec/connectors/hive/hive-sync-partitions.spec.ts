// CALL system.sync_partition_metadata against a real directory tree: partition directories written by
// another tool (DuckDB's COPY ... PARTITION_BY, renamed as Hive names them) registered by ADD, forgotten by
// DROP when gone, both by FULL; Trino's argument binding and errors; the access rules an INSERT and a DELETE
// need; names and symlinks that try to leave the table.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { createAccessControl } from '../../../lib/security/access-control.js';
import { runSql, testSession } from '../../engine/engine-helpers.js';
import { useHiveFixture, type HiveFixture } from './hive-helpers.js';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import { hiveSplitSourceSql, hiveTableFiles, hiveTableSplits } from '../../../lib/connectors/hive/hive-splits.js';
import type { DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { parseStatement } from '../../../lib/sql/index.js';
import type { Query, QuerySpecification } from '../../../lib/sql/ast.js';

describe('hive CALL system.sync_partition_metadata', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture();
  let f: HiveFixture;
  let table = 0;
  let name: string;
  beforeEach(async () => {
    f = fixture();
    name = `ev${table++}`;
    await f.run(`CREATE TABLE lake.s.${name} (n integer, tag varchar, day varchar) WITH (partitioned_by = ARRAY['tag', 'day'])`);
    await f.run(`INSERT INTO lake.s.${name} VALUES (1, 'a', '1')`);
  });

  /** Writes Parquet rows of `n` into <table>/tag=<tag>/day=<day>/ as another tool would. */
  const byHand = async (tag: string, day: string, n: number) => {
    const dir = join(f.root, 's', name, `tag=${tag}`, `day=${day}`);
    mkdirSync(dir, { recursive: true });
    await f.direct(`COPY (SELECT ${n}::INTEGER AS n) TO '${join(dir, `by-hand-${n}.parquet`)}' (FORMAT parquet)`);
  };
  const rows = async () => (await f.run(`SELECT n, tag, day FROM lake.s.${name} ORDER BY n`)).rows;
  const partitions = async () => (await f.run(`SELECT tag, day FROM lake.s."${name}$partitions" ORDER BY 1, 2`)).rows;

  it('ADD registers the partition directories another tool wrote into a managed table', async () => {
    await byHand('b', '2', 2);
    await byHand('c', '3', 3);
    expect(await rows(), 'unregistered directories are not read').to.deep.equal([[1, 'a', '1']]);
    const out = await f.run(`CALL system.sync_partition_metadata('s', '${name}', 'ADD')`);
    expect([out.plan.updateType, out.rows]).to.deep.equal(['CALL', []]);
    expect(await rows()).to.deep.equal([[1, 'a', '1'], [2, 'b', '2'], [3, 'c', '3']]);
    expect(existsSync(join(f.root, 's', name, 'tag=b', 'day=2', '.trinoSchema'))).to.equal(true);
  });

  it('DROP forgets the partitions of an external table whose directories are gone; FULL adds and drops at once', async () => {
    // An external table's partition metadata lives under the metastore's table directory, its data elsewhere.
    const ext = `x${name}`;
    await f.run(`CREATE TABLE lake.s.${ext} (n integer, tag varchar, day varchar) WITH (external_location = 'local:///ext/${ext}', partitioned_by = ARRAY['tag', 'day'])`);
    const data = join(f.root, 'ext', ext);
    const write = async (tag: string, day: string, n: number) => {
      mkdirSync(join(data, `tag=${tag}`, `day=${day}`), { recursive: true });
      await f.direct(`COPY (SELECT ${n}::INTEGER AS n) TO '${join(data, `tag=${tag}`, `day=${day}`, `f${n}.parquet`)}' (FORMAT parquet)`);
    };
    const listed = async () => (await f.run(`SELECT tag, day FROM lake.s."${ext}$partitions" ORDER BY 1, 2`)).rows;
    await write('b', '2', 2);
    await write('c', '3', 3);
    await f.run(`CALL lake.system.sync_partition_metadata(schema_name => 's', table_name => '${ext}', mode => 'add')`);
    expect(await listed()).to.deep.equal([['b', '2'], ['c', '3']]);
    rmSync(join(data, 'tag=c'), { recursive: true });
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'ADD')`);
    expect(await listed(), 'ADD drops nothing').to.deep.equal([['b', '2'], ['c', '3']]);
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'DROP')`);
    expect(await listed()).to.deep.equal([['b', '2']]);
    rmSync(join(data, 'tag=b'), { recursive: true });
    await write('d', '4', 4);
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'FULL', true)`);
    expect(await listed()).to.deep.equal([['d', '4']]);
    expect((await f.run(`SELECT n, tag FROM lake.s.${ext}`)).rows).to.deep.equal([[4, 'd']]);
  });

  it('keeps an external table\'s TAG=x directory as partition tag=x\'s location with case_sensitive => false, read by scans, pruning and splits', async () => {
    const ext = `c${name}`;
    await f.run(`CREATE TABLE lake.s.${ext} (n integer, tag varchar, day varchar) WITH (external_location = 'local:///ext/${ext}', partitioned_by = ARRAY['tag', 'day'])`);
    const data = join(f.root, 'ext', ext);
    const write = async (dir: string, n: number) => {
      mkdirSync(join(data, dir), { recursive: true });
      await f.direct(`COPY (SELECT ${n}::INTEGER AS n) TO '${join(data, dir, `f${n}.parquet`)}' (FORMAT parquet)`);
    };
    await write('TAG=B/Day=2', 2);
    await write('tag=c/day=3', 3);
    await write('tag=d/day=4', 4);
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'ADD', true)`);
    const listed = async () => (await f.run(`SELECT tag, day FROM lake.s."${ext}$partitions" ORDER BY 1, 2`)).rows;
    expect(await listed(), 'case-sensitive: TAG=B is no partition directory').to.deep.equal([['c', '3'], ['d', '4']]);
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'FULL', false)`);
    // Named from its values under the table's columns (the value keeps its case), its directory kept as its location.
    expect(await listed()).to.deep.equal([['B', '2'], ['c', '3'], ['d', '4']]);
    const stored = JSON.parse(readFileSync(join(f.root, 's', ext, 'tag=B', 'day=2', '.trinoSchema'), 'utf8')) as { location?: string };
    expect(stored.location).to.equal(`local:///ext/${ext}/TAG=B/Day=2`);
    expect((await f.run(`SELECT n, tag, day, "$partition" FROM lake.s.${ext} ORDER BY n`)).rows).to.deep.equal([[2, 'B', '2', 'tag=B/day=2'], [3, 'c', '3', 'tag=c/day=3'], [4, 'd', '4', 'tag=d/day=4']]);
    expect((await f.run(`SELECT n FROM lake.s.${ext} WHERE tag = 'B'`)).rows, 'pruned to the relocated partition').to.deep.equal([[2]]);
    // Pruning and splits (the coordinator's listing, a worker's reader) find its files at its location.
    const where = ((parseStatement("SELECT * FROM t WHERE tag = 'B'") as Query).body as QuerySpecification).where;
    const files = hiveTableFiles(f.config, 's', ext, where)!;
    expect([files.partitions, files.files]).to.deep.equal([1, ['TAG=B/Day=2/f2.parquet']]);
    const splits = hiveTableSplits(f.config, 's', ext)!.splits.map((s) => ({ ...s, slice: 0, slices: 1 }));
    const sql = await hiveSplitSourceSql(new HiveCatalog(f.config, []), 's', ext, splits, (path) => (f.engine as DuckDbEngine).parquetFooter(path));
    expect(await f.direct(`SELECT n, tag, day FROM (${sql}) ORDER BY n`)).to.deep.equal([[2, 'B', '2'], [3, 'c', '3'], [4, 'd', '4']]);
    // Compared by location: a second FULL changes nothing; once the directory is gone, DROP forgets the partition.
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'FULL', false)`);
    expect(await listed()).to.deep.equal([['B', '2'], ['c', '3'], ['d', '4']]);
    rmSync(join(data, 'TAG=B'), { recursive: true });
    await f.run(`CALL system.sync_partition_metadata('s', '${ext}', 'DROP', false)`);
    expect(await listed()).to.deep.equal([['c', '3'], ['d', '4']]);
    // Two directories naming one partition: Trino's metastore refuses the second.
    await write('TAG=c/day=3', 5);
    expect(await f.failure(`CALL system.sync_partition_metadata('s', '${ext}', 'ADD', false)`)).to.deep.equal({ errorName: 'HIVE_METASTORE_ERROR', message: 'Partition already exists' });
  });

  it('binds arguments as Trino\'s CallTask and fails as Trino\'s procedure does', async () => {
    const failure = (sql: string) => f.failure(sql);
    expect(await failure(`CALL system.sync_partition_metadata('s', '${name}', 'SOME')`)).to.deep.equal({ errorName: 'INVALID_PROCEDURE_ARGUMENT', message: 'Invalid partition metadata sync mode: SOME' });
    expect(await failure(`CALL system.sync_partition_metadata('s', '${name}')`)).to.deep.equal({ errorName: 'INVALID_PROCEDURE_ARGUMENT', message: "Required procedure argument 'MODE' is missing" });
    expect(await failure(`CALL system.sync_partition_metadata('s', table_name => '${name}', mode => 'ADD')`)).to.deep.equal({ errorName: 'INVALID_PROCEDURE_ARGUMENT', message: 'Named and positional arguments cannot be mixed' });
    expect((await failure(`CALL system.sync_partition_metadata(schema_name => 's', tablename => '${name}', mode => 'ADD')`)).message).to.equal('Unknown argument name: tablename');
    expect((await failure(`CALL system.sync_partition_metadata(NULL, '${name}', 'ADD')`)).message).to.equal('schema_name cannot be null');
    expect((await failure("CALL system.sync_partition_metadata('s', 'nothing', 'ADD')"))).to.deep.equal({ errorName: 'TABLE_NOT_FOUND', message: "Table 's.nothing' not found" });
    await f.run('CREATE TABLE lake.s.flat (n integer)');
    expect(await failure("CALL system.sync_partition_metadata('s', 'flat', 'ADD')")).to.deep.equal({ errorName: 'INVALID_PROCEDURE_ARGUMENT', message: 'Table is not partitioned: s.flat' });
    const other = await failure(`CALL system.other_procedure('s', '${name}', 'ADD')`);
    expect([other.errorName, other.message]).to.deep.equal(['PROCEDURE_NOT_FOUND', 'line 1:1: Procedure not registered: system.other_procedure']);
    const memory = await failure(`CALL memory.system.sync_partition_metadata('s', '${name}', 'ADD')`);
    expect([memory.errorName, memory.message]).to.deep.equal(['PROCEDURE_NOT_FOUND', 'Procedure not registered: memory.system.sync_partition_metadata']);
  });

  it('registers no directory that leaves the table: names climbing out, a symlink, another case', async () => {
    for (const climbing of ['../s', '..', `${name}/../${name}`, '.']) {
      const e = await f.failure(`CALL system.sync_partition_metadata('s', '${climbing}', 'ADD')`);
      expect(e.errorName, `${climbing}: ${e.message}`).to.be.oneOf(['TABLE_NOT_FOUND', 'INVALID_TABLE_PROPERTY']);
    }
    // A partition directory that is a symlink out of the root is never registered.
    const outside = mkdtempSync(join(tmpdir(), 'vivace-outside-'));
    try {
      mkdirSync(join(outside, 'day=9'));
      await f.direct(`COPY (SELECT 9::INTEGER AS n) TO '${join(outside, 'day=9', 'x.parquet')}' (FORMAT parquet)`);
      symlinkSync(outside, join(f.root, 's', name, 'tag=z'));
      await f.run(`CALL system.sync_partition_metadata('s', '${name}', 'ADD')`);
      expect(await partitions()).to.deep.equal([['a', '1']]);
    } finally {
      rmSync(join(f.root, 's', name, 'tag=z'));
      rmSync(outside, { recursive: true, force: true });
    }
    // TAG=b is tag=b without case sensitivity, but a managed table's partition must be at its name (FileHiveMetastore).
    await byHand('b', '2', 2);
    renameSync(join(f.root, 's', name, 'tag=b'), join(f.root, 's', name, 'TAG=b'));
    expect(await f.failure(`CALL system.sync_partition_metadata('s', '${name}', 'ADD', false)`)).to.deep.equal({ errorName: 'HIVE_METASTORE_ERROR', message: `Partition directory must be local:///s/${name}/tag=b/day=2` });
    await f.run(`CALL system.sync_partition_metadata('s', '${name}', 'ADD', true)`);
    expect(await partitions()).to.deep.equal([['a', '1']]);
    // Also prepared: the parameters bind to the same arguments.
    renameSync(join(f.root, 's', name, 'TAG=b'), join(f.root, 's', name, 'tag=b'));
    const session = { ...f.session, preparedStatements: { p: 'CALL system.sync_partition_metadata(?, ?, ?)' } };
    await f.run(`EXECUTE p USING 's', '${name}', 'ADD'`, session);
    expect(await partitions()).to.deep.equal([['a', '1'], ['b', '2']]);
  });

  it('needs INSERT to add and DELETE to drop, under the access rules, also through EXECUTE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vivace-sync-rules-'));
    const rulesFile = join(dir, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({
      catalogs: [{ catalog: 'lake', allow: 'all' }],
      schemas: [{ owner: true }],
      tables: [
        { user: 'reader', privileges: ['SELECT'] },
        { user: 'adder', privileges: ['SELECT', 'INSERT'] },
        { user: 'dropper', privileges: ['SELECT', 'DELETE'] },
        { privileges: ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP'] },
      ],
    }));
    const engine = await createDuckDbEngine({ tempDirectory: join(dir, 'tmp'), threads: 2, maxConnections: 2, tpch: false, hive: [f.config], access: createAccessControl({ securityConfigFile: rulesFile }) });
    const as = (user: string, sql: string) => runSql(engine, sql, testSession({ user, catalog: 'lake', schema: 's' })).then(() => 'ok', (e: { errorName: string; message: string }) => `${e.errorName}: ${e.message}`);
    try {
      const call = (mode: string) => `CALL system.sync_partition_metadata('s', '${name}', '${mode}')`;
      expect(await as('reader', call('ADD'))).to.equal(`PERMISSION_DENIED: Access Denied: Cannot insert into table lake.s.${name}`);
      expect(await as('adder', call('DROP'))).to.equal(`PERMISSION_DENIED: Access Denied: Cannot delete from table lake.s.${name}`);
      expect(await as('dropper', call('FULL'))).to.equal(`PERMISSION_DENIED: Access Denied: Cannot insert into table lake.s.${name}`);
      expect(await as('adder', call('FULL'))).to.equal(`PERMISSION_DENIED: Access Denied: Cannot delete from table lake.s.${name}`);
      expect(await as('adder', call('ADD'))).to.equal('ok');
      // ALTER TABLE and RENAME need OWNERSHIP, as Trino's rules say.
      expect(await as('adder', `ALTER TABLE lake.s.${name} ADD COLUMN z bigint`)).to.equal(`PERMISSION_DENIED: Access Denied: Cannot add a column to table lake.s.${name}`);
      expect(await as('adder', `ALTER TABLE lake.s.${name} RENAME TO r${name}`)).to.match(/^PERMISSION_DENIED: Access Denied: Cannot rename table from /);
      expect(await as('owner', `ALTER TABLE lake.s.${name} ADD COLUMN z bigint`)).to.equal('ok');
      expect(await as('dropper', call('DROP'))).to.equal('ok');
      const prepared = runSql(engine, `EXECUTE p USING 's', '${name}', 'ADD'`, testSession({ user: 'reader', catalog: 'lake', schema: 's', preparedStatements: { p: 'CALL system.sync_partition_metadata(?, ?, ?)' } }));
      const denied = await prepared.then(() => 'ok', (e: { message: string }) => e.message);
      expect(denied).to.equal(`Access Denied: Cannot insert into table lake.s.${name}`);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

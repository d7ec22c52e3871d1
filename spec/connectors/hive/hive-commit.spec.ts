// Atomic writes: a writer killed between staging and commit leaves nothing visible, and a commit marker
// it left is rolled forward by the next reader (or start) so everything it committed appears, once.
import { expect } from 'chai';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { hiveFixture, openEngine, type HiveFixture } from './hive-helpers.js';
import { MARKER_PREFIX, STAGING_PREFIX, type CommitMarker } from '../../../lib/connectors/hive/hive-commit.js';

describe('hive connector commits', function () {
  this.timeout(60_000);
  let f: HiveFixture;
  before(async () => {
    f = await hiveFixture();
    await f.run('CREATE SCHEMA lake.s');
    await f.run("CREATE TABLE lake.s.t (n integer, p varchar) WITH (partitioned_by = ARRAY['p'])");
  });
  after(() => f.close());

  const host = hostname().replace(/[^a-z0-9]/gi, '_');

  it('rolls forward a commit marker a crashed writer left: files renamed, partition registered, marker gone', async () => {
    const table = join(f.root, 's/t');
    const staging = `${STAGING_PREFIX}${host}.999999.q1.x`;
    mkdirSync(join(table, staging, 'p=a'), { recursive: true });
    await f.direct(`COPY (SELECT 41 AS n UNION ALL SELECT 42) TO '${join(table, staging, 'p=a/q1_file.parquet')}' (FORMAT parquet)`);
    const marker: CommitMarker = {
      version: 1, staging, renames: [[`${staging}/p=a/q1_file.parquet`, 'p=a/q1_file']], deletes: [], partitions: ['p=a'], schema: 's', tableName: 't',
      partitionMetadata: { columns: [{ name: 'n', type: 'int' }], parameters: {}, storageFormat: 'PARQUET', serdeParameters: {} },
    };
    writeFileSync(join(table, `${MARKER_PREFIX}crashed.json`), JSON.stringify(marker));
    expect((await f.run('SELECT n, p FROM lake.s.t ORDER BY n')).rows).to.deep.equal([[41, 'a'], [42, 'a']]);
    expect(readdirSync(table).filter((e) => e.startsWith('.vivace-'))).to.deep.equal([]);
    expect(existsSync(join(table, 'p=a/.trinoSchema'))).to.equal(true);
    // Applying again (a second reader) changes nothing.
    expect((await f.run('SELECT count(*) FROM lake.s.t')).rows).to.deep.equal([[2]]);
  });

  it('hides staging without a marker, and a restart removes it when its process is gone', async () => {
    const table = join(f.root, 's/t');
    const staging = `${STAGING_PREFIX}${host}.999999.q2.y`;
    mkdirSync(join(table, staging, 'p=b'), { recursive: true });
    await f.direct(`COPY (SELECT 7 AS n) TO '${join(table, staging, 'p=b/q2_file.parquet')}' (FORMAT parquet)`);
    expect((await f.run('SELECT count(*) FROM lake.s.t')).rows).to.deep.equal([[2]]);
    const second = await openEngine(f.directory, f.config, 'restarted');
    await second.engine.close();
    expect(existsSync(join(table, staging))).to.equal(false);
    expect((await f.run('SELECT count(*) FROM lake.s.t')).rows).to.deep.equal([[2]]);
  });

  it('makes a CTAS interrupted after its marker a whole table, and one interrupted before it none', async () => {
    // A finished CTAS's files and marker, replayed as if the writer died right after writing the marker.
    await f.run('CREATE TABLE lake.s.done AS SELECT 5 AS x');
    const done = join(f.root, 's/done');
    const file = readdirSync(done).find((e) => !e.startsWith('.'))!;
    const staging = `${STAGING_PREFIX}${host}.999999.q3.z`;
    const copy = join(f.root, 's/redo');
    mkdirSync(join(copy, staging), { recursive: true });
    cpSync(join(done, file), join(copy, staging, file));
    const marker: CommitMarker = {
      version: 1, staging, renames: [[`${staging}/${file}`, file]], deletes: [], partitions: [], schema: 's', tableName: 'redo',
      table: { schema: 's', name: 'redo', metadata: { tableType: 'MANAGED_TABLE', dataColumns: [{ name: 'x', type: 'int' }], partitionColumns: [], parameters: {}, storageFormat: 'PARQUET', serdeParameters: {} } },
    };
    writeFileSync(join(copy, `${MARKER_PREFIX}m.json`), JSON.stringify(marker));
    // Before the marker (staging only): no table.
    mkdirSync(join(f.root, 's/never', `${STAGING_PREFIX}${host}.999999.q4.w`), { recursive: true });
    expect((await f.run('SELECT x FROM lake.s.redo')).rows).to.deep.equal([[5]]);
    expect((await f.run('SHOW TABLES FROM lake.s')).rows.map((r) => r[0])).to.not.include('never');
    renameSync(join(copy, file), join(copy, 'moved'));
    expect((await f.run('SELECT x FROM lake.s.redo')).rows).to.deep.equal([[5]]);
  });
});

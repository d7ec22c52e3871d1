// DELETE on hive tables as Trino allows it without transactions: whole partitions by a predicate on
// partition columns (metadata and files, in one commit), every row of an unpartitioned table without
// WHERE, Trino's refusals for the rest. Files read back from the real directory tree.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { useHiveFixture, type HiveFixture } from './hive-helpers.js';

describe('hive DELETE', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture();
  let f: HiveFixture;
  beforeEach(() => {
    f = fixture();
  });

  const visible = (dir: string) => (existsSync(join(f.root, dir)) ? readdirSync(join(f.root, dir)).filter((n) => !n.startsWith('.')).sort() : []);

  it('drops the whole partitions a predicate on partition columns matches, files and metadata', async () => {
    await f.run("CREATE TABLE lake.s.ev (n integer, tag varchar, day date) WITH (partitioned_by = ARRAY['tag', 'day'])");
    await f.run("INSERT INTO lake.s.ev VALUES (1, 'a', DATE '2024-01-01'), (2, 'a', DATE '2024-01-02'), (3, 'b', DATE '2024-01-01'), (4, NULL, DATE '2024-01-03')");
    const out = await f.run("DELETE FROM lake.s.ev WHERE tag = 'a' AND day > DATE '2024-01-01'");
    expect(out.rows).to.deep.equal([[null]]);
    expect(out.updateCount).to.equal(undefined);
    expect(visible('s/ev/tag=a')).to.deep.equal(['day=2024-01-01']);
    expect((await f.run('SELECT n FROM lake.s.ev ORDER BY n')).rows).to.deep.equal([[1], [3], [4]]);
    expect((await f.run('SELECT * FROM lake.s."ev$partitions" ORDER BY 1, 2')).rows).to.deep.equal([['a', '2024-01-01'], ['b', '2024-01-01'], [null, '2024-01-03']]);
    // NULL's partition, by IS NULL; a function of a partition column; the emptied tag directory goes too.
    await f.run('DELETE FROM lake.s.ev WHERE tag IS NULL');
    expect(visible('s/ev')).to.deep.equal(['tag=a', 'tag=b']);
    // The same text again after a DELETE: no cached plan holds the partitions the DELETE dropped.
    expect((await f.run('SELECT * FROM lake.s."ev$partitions" ORDER BY 1, 2')).rows).to.deep.equal([['a', '2024-01-01'], ['b', '2024-01-01']]);
    await f.run("DELETE FROM lake.s.ev WHERE upper(tag) = 'B'");
    expect(visible('s/ev')).to.deep.equal(['tag=a']);
    expect((await f.run('SELECT n, "$partition" FROM lake.s.ev')).rows).to.deep.equal([[1, 'tag=a/day=2024-01-01']]);
    expect((await f.run('SELECT * FROM lake.s."ev$partitions"')).rows).to.deep.equal([['a', '2024-01-01']]);
    // Nothing matched: nothing changes.
    await f.run("DELETE FROM lake.s.ev WHERE tag = 'zz'");
    expect((await f.run('SELECT count(*) FROM lake.s.ev')).rows).to.deep.equal([[1]]);
    // Without WHERE: every partition.
    await f.run('DELETE FROM lake.s.ev');
    expect(visible('s/ev')).to.deep.equal([]);
    expect((await f.run('SELECT count(*) FROM lake.s.ev')).rows).to.deep.equal([[0]]);
  });

  it('refuses anything else with Trino\'s message', async () => {
    await f.run("CREATE TABLE lake.s.p (n integer, tag varchar) WITH (partitioned_by = ARRAY['tag'])");
    await f.run("INSERT INTO lake.s.p VALUES (1, 'a'), (2, 'b')");
    const whole = { errorName: 'NOT_SUPPORTED', message: 'Deletes must match whole partitions for non-transactional tables' };
    for (const where of ['n = 1', "tag = 'a' AND n = 1", "tag = 'a' OR n > 0", 'p.n = 1', '"$path" IS NOT NULL', "tag IN (SELECT 'a')", 'EXISTS (SELECT 1)', 'abs(n) = 1']) {
      expect(await f.failure(`DELETE FROM lake.s.p WHERE ${where}`), where).to.deep.equal(whole);
    }
    expect((await f.failure('DELETE FROM lake.s.p WHERE nope = 1')).errorName).to.equal('COLUMN_NOT_FOUND');
    await f.run('CREATE TABLE lake.s.flat (x bigint)');
    await f.run('INSERT INTO lake.s.flat VALUES (1)');
    expect(await f.failure('DELETE FROM lake.s.flat WHERE x = 1')).to.deep.equal(whole);
    expect((await f.failure('DELETE FROM lake.s.missing')).errorName).to.equal('TABLE_NOT_FOUND');
    expect((await f.run('SELECT n FROM lake.s.p ORDER BY n')).rows).to.deep.equal([[1], [2]]);
  });

  it('empties an unpartitioned table without WHERE (its directory stays)', async () => {
    await f.run('CREATE TABLE lake.s.u (x bigint)');
    await f.run('INSERT INTO lake.s.u VALUES (1), (2)');
    await f.run('INSERT INTO lake.s.u VALUES (3)');
    expect(visible('s/u')).to.have.length(2);
    await f.run('DELETE FROM lake.s.u');
    expect(visible('s/u')).to.deep.equal([]);
    expect(existsSync(join(f.root, 's/u/.trinoSchema'))).to.equal(true);
    expect((await f.run('SELECT count(*) FROM lake.s.u')).rows).to.deep.equal([[0]]);
    await f.run('INSERT INTO lake.s.u VALUES (4)');
    expect((await f.run('SELECT x FROM lake.s.u')).rows).to.deep.equal([[4]]);
  });

  it('keeps an external table\'s files: partitions lose their metadata only, an unpartitioned one is refused', async () => {
    mkdirSync(join(f.root, 'ext'), { recursive: true });
    await f.run("CREATE TABLE lake.s.ext (x bigint) WITH (external_location = 'local:///ext')");
    expect(await f.failure('DELETE FROM lake.s.ext')).to.deep.equal({ errorName: 'NOT_SUPPORTED', message: 'Cannot delete from non-managed Hive table' });
    await f.run("CREATE TABLE lake.s.extp (x bigint, k varchar) WITH (external_location = 'local:///extp', partitioned_by = ARRAY['k'])");
    mkdirSync(join(f.root, 'extp/k=a'), { recursive: true });
    await f.direct(`COPY (SELECT 5::BIGINT AS x) TO '${join(f.root, 'extp/k=a/f1')}' (FORMAT parquet)`);
    await f.run("CALL lake.system.sync_partition_metadata('s', 'extp', 'ADD')").catch(() => undefined);
    if ((await f.run('SELECT count(*) FROM lake.s."extp$partitions"')).rows[0]![0] === 1) {
      await f.run("DELETE FROM lake.s.extp WHERE k = 'a'");
      expect((await f.run('SELECT count(*) FROM lake.s."extp$partitions"')).rows).to.deep.equal([[0]]);
      expect(existsSync(join(f.root, 'extp/k=a/f1'))).to.equal(true);
    }
  });
});

// A query over one partitioned hive table reads only the partitions its WHERE clause leaves, listed for the
// statement (HiveCatalog.prunedReadSql, the printer's prunedSource): the SQL names no other partition's
// file, a predicate it cannot be sure of (or one on another query's column) reads the whole view, and the
// rows are always those of the whole table filtered.
import { expect } from 'chai';
import fc from 'fast-check';
import sinon from 'sinon';
import { DuckDBInstance } from '@duckdb/node-api';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import { parseExpression } from '../../../lib/sql/index.js';
import { useHiveFixture } from './hive-helpers.js';

describe('hive connector: reads pruned to the WHERE clause\'s partitions', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture();
  before(async () => {
    const f = fixture();
    await f.run("CREATE TABLE lake.s.p (x bigint, k varchar, d date) WITH (partitioned_by = ARRAY['k', 'd'])");
    await f.run("INSERT INTO lake.s.p VALUES (1, 'a', DATE '2026-01-01'), (2, 'a', DATE '2026-01-02'), (3, 'b', DATE '2026-01-01'), (4, NULL, NULL), (5, 'c', DATE '2026-02-01')");
    await f.run('SELECT count(*) FROM lake.s.p'); // mirrored
  });

  it('names only the files of the partitions left, and nothing for what it cannot be sure of', async () => {
    const f = fixture();
    const catalog = new HiveCatalog(f.config, []);
    const sql = (where: string, qualifiers = ['p']) => catalog.prunedReadSql('s', 'p', parseExpression(where), new Set(qualifiers));
    // Not mirrored yet: the view serves.
    expect(sql("k = 'a'")).to.equal(undefined);
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run("ATTACH ':memory:' AS lake");
      await catalog.sync(connection, [{ schema: 's', table: 'p' }]);
      const partitionsNamed = (text: string | undefined) => ['k=a/d=2026-01-01', 'k=a/d=2026-01-02', 'k=b/d=2026-01-01', 'k=c/d=2026-02-01', 'k=__HIVE_DEFAULT_PARTITION__'].filter((p) => text?.includes(`/${p}/`));
      expect(partitionsNamed(sql("k = 'b'"))).to.deep.equal(['k=b/d=2026-01-01']);
      expect(partitionsNamed(sql("t.k IN ('a', 'c') AND d >= DATE '2026-01-02'", ['t']))).to.deep.equal(['k=a/d=2026-01-02', 'k=c/d=2026-02-01']);
      expect(partitionsNamed(sql('k IS NULL'))).to.deep.equal(['k=__HIVE_DEFAULT_PARTITION__']);
      expect(sql("k = 'zzz'")).to.match(/WHERE false$/);
      for (const unsure of ['x > 0', "lower(k) = 'a'", "k = 'a' OR x = 1", "o.k = 'a'"]) expect(sql(unsure), unsure).to.equal(undefined);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('is what a query over the one table reads, with its WHERE clause and alias', async () => {
    const f = fixture();
    const spy = sinon.spy(HiveCatalog.prototype, 'prunedReadSql');
    try {
      expect((await f.run("SELECT x FROM lake.s.p t WHERE t.k = 'b' AND x > 0")).rows).to.deep.equal([[3]]);
      const read = spy.getCalls().find((c) => c.args[1] === 'p');
      expect(read?.args[3], 'qualifiers').to.deep.equal(new Set(['t']));
      expect(read?.returnValue).to.include('/k=b/d=2026-01-01/').and.not.include('/k=a/');
    } finally {
      spy.restore();
    }
  });

  it('gives the rows of the whole table filtered, for any predicate on partition and data columns (property)', async () => {
    const f = fixture();
    const term = fc.oneof(
      fc.constantFrom("k = 'a'", "k <> 'a'", 'k IS NULL', 'k IS NOT NULL', "k IN ('b', 'c')", "k > 'a'", "k BETWEEN 'a' AND 'b'",
        "d = DATE '2026-01-01'", "d < DATE '2026-01-02'", 'd IS NULL', 'x > 2', 'p.x = 1', "p.k = 'c'", "lower(k) = 'a'"),
    );
    const where = fc.array(term, { minLength: 1, maxLength: 3 }).chain((terms) => fc.constantFrom(' AND ', ' OR ').map((op) => terms.join(op)));
    await fc.assert(fc.asyncProperty(where, async (w) => {
      const pruned = (await f.run(`SELECT x FROM lake.s.p WHERE ${w} ORDER BY x`)).rows;
      // The same filter over a subquery: no pruning reaches through it.
      const whole = (await f.run(`SELECT x FROM (SELECT * FROM lake.s.p) p WHERE ${w} ORDER BY x`)).rows;
      expect(pruned, w).to.deep.equal(whole);
    }), { numRuns: 60 });
  });

  it('never prunes by another query\'s column of the same name (a correlated subquery)', async () => {
    const f = fixture();
    await f.run("CREATE TABLE lake.s.outer_t (k varchar) WITH (format = 'PARQUET')");
    await f.run("INSERT INTO lake.s.outer_t VALUES ('zzz')");
    const rows = (await f.run('SELECT (SELECT count(*) FROM lake.s.p WHERE o.k = \'zzz\') FROM lake.s.outer_t o')).rows;
    expect(rows).to.deep.equal([[5]]);
  });
});

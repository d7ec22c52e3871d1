// SHOW STATS FOR a hive Parquet table from its files' footers (no row read), checked against DuckDB's own
// count, min and max over the same files; partition columns from the directories; a guarded table and a
// query keep the exact pass over their rows.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { createAccessControl } from '../../../lib/security/access-control.js';
import { runSql, testSession } from '../../engine/engine-helpers.js';
import { useHiveFixture } from './hive-helpers.js';

describe('hive SHOW STATS from Parquet footers', function () {
  this.timeout(120_000);
  const hive = useHiveFixture();
  const filesOf = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
    const path = join(dir, n);
    if (n.startsWith('.') || n.startsWith('_')) return [];
    return statSync(path).isDirectory() ? filesOf(path) : [path];
  });

  it('gives the row count, nulls, sizes and bounds the footers hold, and the partitions\' values', async () => {
    const f = hive();
    await f.run("CREATE TABLE lake.s.st (n bigint, d double, name varchar, day date, p varchar) WITH (partitioned_by = ARRAY['p'])");
    await f.run("INSERT INTO lake.s.st VALUES (1, 1.5, 'one', DATE '2024-01-01', 'a'), (2, NULL, 'two', DATE '2024-03-01', 'a'), (30, -2.0, NULL, NULL, 'b'), (4, 8.25, 'four', DATE '2023-12-31', NULL)");
    await f.run("INSERT INTO lake.s.st VALUES (-5, 0.0, 'five', DATE '2025-06-30', 'b')");
    const stats = (await f.run('SHOW STATS FOR lake.s.st')).rows;
    const files = filesOf(join(f.root, 's', 'st')).map((p) => `'${p}'`).join(', ');
    const [[count, nNulls, lowN, highN, dNulls, lowD, highD, nameNulls, lowDay, highDay]] = await f.direct(
      `SELECT count(*), count(*) - count(n), min(n)::VARCHAR, max(n)::VARCHAR, count(*) - count(d), min(d)::VARCHAR, max(d)::VARCHAR, count(*) - count(name), min(day)::VARCHAR, max(day)::VARCHAR FROM read_parquet([${files}])`,
    ) as [[bigint, bigint, string, string, bigint, string, string, bigint, string, string]];
    const rows = Number(count);
    const byName = new Map(stats.map((r) => [r[0], r]));
    expect(byName.get(null)).to.deep.equal([null, null, null, null, rows, null, null]);
    expect(byName.get('n')).to.deep.equal(['n', null, null, Number(nNulls) / rows, null, lowN, highN]);
    expect(byName.get('d')).to.deep.equal(['d', null, null, Number(dNulls) / rows, null, lowD, highD]);
    const name = byName.get('name')!;
    expect([name[3], name[5], name[6]]).to.deep.equal([Number(nameNulls) / rows, null, null]);
    expect(name[1]).to.be.a('number').above(0);
    expect([byName.get('day')![5], byName.get('day')![6]]).to.deep.equal([lowDay, highDay]);
    // p: a, b and the default partition (NULL): rows 2, 2 and 1.
    expect(byName.get('p')).to.deep.equal(['p', 4 /* a and b twice each: one byte a row */, 2, 1 / 5, null, null, null]);
  });

  it('answers an empty table and a non-Parquet table, and keeps the exact pass for a query', async () => {
    const f = hive();
    await f.run('CREATE TABLE lake.s.empty (x bigint)');
    expect((await f.run('SHOW STATS FOR lake.s.empty')).rows).to.deep.equal([['x', null, 0, null, null, null, null], [null, null, null, null, 0, null, null]]);
    await f.run("CREATE TABLE lake.s.csv (x varchar) WITH (format = 'CSV')");
    await f.run("INSERT INTO lake.s.csv VALUES ('a'), ('b'), (NULL)");
    const csv = (await f.run('SHOW STATS FOR lake.s.csv')).rows;
    expect(csv[csv.length - 1]).to.deep.equal([null, null, null, null, 3, null, null]);
    await f.run('CREATE TABLE lake.s.q AS SELECT * FROM (VALUES 1, 2, 3) AS t (x)');
    const query = (await f.run('SHOW STATS FOR (SELECT * FROM lake.s.q WHERE x > 1)')).rows;
    expect(query[query.length - 1]).to.deep.equal([null, null, null, null, 2, null, null]);
  });

  it('never tells a filtered user the rows their filter hides: a guarded table is counted through its guard', async () => {
    const f = hive();
    await f.run('CREATE TABLE lake.s.guarded AS SELECT * FROM (VALUES 1, 5, 20, 30) AS t (n)');
    const dir = mkdtempSync(join(tmpdir(), 'vivace-stats-rules-'));
    writeFileSync(join(dir, 'rules.json'), JSON.stringify({ tables: [{ user: 'eve', table: 'guarded', privileges: ['SELECT'], filter: 'n > 10' }, { privileges: ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP'] }] }));
    const engine = await createDuckDbEngine({ tempDirectory: join(dir, 'tmp'), threads: 2, maxConnections: 2, tpch: false, hive: [f.config], access: createAccessControl({ securityConfigFile: join(dir, 'rules.json') }) });
    try {
      const count = async (user: string) => (await runSql(engine, 'SHOW STATS FOR lake.s.guarded', testSession({ user, catalog: 'lake', schema: 's' }))).rows.at(-1)![4];
      expect([await count('eve'), await count('admin')]).to.deep.equal([2, 4]);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

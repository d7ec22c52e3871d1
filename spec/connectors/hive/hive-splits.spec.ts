// A lake table's splits (hive-splits.ts) against real files and a real engine: slices of a Parquet file own
// whole row groups and cover every row once, partition values come with each file, a text file is read by
// its first slice only, and a split naming anything but one of the table's data files is refused.
import { expect } from 'chai';
import fc from 'fast-check';
import { join } from 'node:path';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import { hiveSplitSourceSql, hiveTableFiles, rowGroupRange } from '../../../lib/connectors/hive/hive-splits.js';
import type { DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { hiveFixture, type HiveFixture } from './hive-helpers.js';

describe('hive connector: splits', function () {
  this.timeout(60_000);
  let f: HiveFixture;
  let catalog: HiveCatalog;
  before(async () => {
    f = await hiveFixture();
    catalog = new HiveCatalog(f.config, []);
    await f.run('CREATE SCHEMA lake.s');
    await f.run('CREATE TABLE lake.s.r (x bigint, y varchar)');
    // A file of 13 row groups, written by another tool into the table's directory.
    await f.direct(`COPY (SELECT range AS x, 'v' || range AS y FROM range(50000)) TO '${join(f.root, 's', 'r', 'by-hand')}' (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
    await f.run("CREATE TABLE lake.s.p WITH (partitioned_by = ARRAY['k']) AS SELECT x, k FROM (VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, NULL)) AS t (x, k)");
    await f.run("CREATE TABLE lake.s.c (a varchar) WITH (format = 'CSV')");
    await f.run("INSERT INTO lake.s.c VALUES ('one'), ('two')");
  });
  after(() => f.close());

  const footer = (path: string) => (f.engine as DuckDbEngine).parquetFooter(path);
  const read = async (table: string, splits: { file: string; slice: number; slices: number }[], select = 'count(*), min(x), max(x)') => {
    const sql = await hiveSplitSourceSql(catalog, 's', table, splits, footer);
    return f.direct(`SELECT ${select} FROM (${sql})`);
  };

  it('lists a table\'s data files relative to its location, with their bytes', () => {
    const listed = hiveTableFiles(f.config, 's', 'p')!;
    expect(listed.files.map((p) => p.split('/')[0]).sort()).to.deep.equal(['k=__HIVE_DEFAULT_PARTITION__', 'k=a', 'k=b']);
    expect(listed.bytes).to.be.above(0);
    expect(hiveTableFiles(f.config, 's', 'missing')).to.equal(undefined);
  });

  it('cuts a Parquet file into slices of whole row groups that cover every row once', async () => {
    const footerRows = (await footer(join(f.root, 's', 'r', 'by-hand'))).rowGroupRows;
    expect(footerRows).to.have.length(13);
    for (const slices of [1, 2, 3, 5, 13, 20]) {
      let next = 0;
      let total = 0;
      for (let slice = 0; slice < slices; slice++) {
        const [[count, min, max]] = (await read('r', [{ file: 'by-hand', slice, slices }])) as [[bigint, bigint | null, bigint | null]];
        if (Number(count) === 0) continue;
        expect(Number(min), `${slice}/${slices}`).to.equal(next);
        expect(Number(min) % 4096, 'a row group start').to.equal(0);
        next = Number(max) + 1;
        total += Number(count);
      }
      expect([total, next], `${slices} slices`).to.deep.equal([50_000, 50_000]);
    }
  });

  it('row-group ranges partition the rows for any row groups and slice counts (property)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 40 }), fc.integer({ min: 1, max: 64 }), (groups, slices) => {
      const total = groups.reduce((a, b) => a + b, 0);
      let next = 0;
      for (let i = 0; i < slices; i++) {
        const { start, end } = rowGroupRange(groups, i, slices);
        expect(start).to.equal(next);
        next = end;
      }
      expect(next).to.equal(total);
    }));
  });

  it('gives each file its partition values, typed as declared', async () => {
    const splits = hiveTableFiles(f.config, 's', 'p')!.files.map((file) => ({ file, slice: 0, slices: 1 }));
    expect(await read('p', splits, "string_agg(x || ':' || coalesce(k, 'null'), ',' ORDER BY x)")).to.deep.equal([['1:a,2:a,3:b,4:null']]);
  });

  it('reads a text file whole, by its first slice', async () => {
    const [file] = hiveTableFiles(f.config, 's', 'c')!.files;
    expect(await read('c', [{ file: file!, slice: 0, slices: 2 }], 'count(*)')).to.deep.equal([[2n]]);
    expect(await read('c', [{ file: file!, slice: 1, slices: 2 }], 'count(*)')).to.deep.equal([[0n]]);
  });

  it('refuses a split that is no data file of the table: other tables, metadata, staging, climbing out', async () => {
    const other = hiveTableFiles(f.config, 's', 'p')!.files[0]!;
    for (const file of [other, `../p/${other}`, '.trinoSchema', '../../.s.trinoSchema', '/etc/passwd', '../../../../../../etc/passwd', 'by-hand/../by-hand/x', 'BY-HAND']) {
      let message = '';
      try {
        await hiveSplitSourceSql(catalog, 's', 'r', [{ file, slice: 0, slices: 1 }], footer);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, file).to.match(/is no data file of lake\.s\.r here/);
    }
  });
});

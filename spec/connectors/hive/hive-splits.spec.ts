// A lake table's splits (hive-splits.ts) against real files and a real engine: files cut into byte ranges as
// Trino's HiveSplitSource, any cut of a Parquet file reading each row group once (by its first data page),
// slices of whole row groups, partition values with each file, a text file read whole by one split, and a
// split naming anything but one of the table's data files refused.
import { expect } from 'chai';
import fc from 'fast-check';
import { cpSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import { cutSplits, hiveSplitSourceSql, hiveTableFiles, hiveTableSplits, rowGroupRange, rowGroupsInRange, type HiveSplit } from '../../../lib/connectors/hive/hive-splits.js';
import type { DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { hiveFixture, type HiveFixture } from './hive-helpers.js';
import { parseExpression } from '../../../lib/sql/index.js';

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
  const read = async (table: string, splits: HiveSplit[], select = 'count(*), min(x), max(x)') => {
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

  const MB = 1024 * 1024;
  const sizes = { maxSplitSizeBytes: 64 * MB, maxInitialSplitSizeBytes: 32 * MB, maxInitialSplits: 200 };
  const lengths = (splits: { length: number }[]) => splits.map((s) => s.length / MB);

  it('cuts files into byte ranges as Trino\'s HiveSplitSource: initial splits, then the full size, a remainder in halves', () => {
    // 100MB: 32 + 32 initial, then the 36 left (at most twice 32) in two halves.
    expect(lengths(cutSplits([{ file: 'a', size: 100 * MB }], true, sizes))).to.deep.equal([32, 32, 18, 18]);
    // Past the initial splits, 64MB splits; 150MB left after them: 64, then 86 (at most 128) in halves.
    const late = cutSplits([{ file: 'a', size: 64 * MB }, { file: 'b', size: 214 * MB }], true, { ...sizes, maxInitialSplits: 2 });
    expect(late.map((s) => [s.file, s.start / MB, s.length / MB])).to.deep.equal([['a', 0, 32], ['a', 32, 32], ['b', 0, 64], ['b', 64, 64], ['b', 128, 43], ['b', 171, 43]]);
    // A file no larger than the limit is one split; an empty file none (HIVE-13040).
    expect(cutSplits([{ file: 'a', size: 32 * MB }, { file: 'e', size: 0 }, { file: 'b', size: 1 }], true, sizes)).to.deep.equal([{ file: 'a', start: 0, length: 32 * MB }, { file: 'b', start: 0, length: 1 }]);
    // Unsplittable (text here): one split each whatever its size; it counts as an initial split all the same.
    expect(cutSplits([{ file: 't', size: 500 * MB }, { file: 'u', size: 3 }], false, sizes)).to.deep.equal([{ file: 't', start: 0, length: 500 * MB }, { file: 'u', start: 0, length: 3 }]);
  });

  it('cuts any files into ranges that tile each file, each at most the limit of its turn (property)', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 12 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 8 }),
      (files, max, initial, initialSplits) => {
        const cut = cutSplits(files.map((size, i) => ({ file: String(i), size })), true, { maxSplitSizeBytes: max, maxInitialSplitSizeBytes: initial, maxInitialSplits: initialSplits });
        files.forEach((size, i) => {
          const mine = cut.filter((s) => s.file === String(i));
          let next = 0;
          for (const s of mine) {
            expect(s.start).to.equal(next);
            expect(s.length).to.be.within(1, Math.max(max, initial));
            next += s.length;
          }
          expect(next).to.equal(size);
        });
        cut.forEach((s, n) => expect(s.length, `split ${n}`).to.be.at.most(n < initialSplits ? initial : max));
      },
    ));
  });

  it('reads each row group once for any cut of a Parquet file into byte ranges, by its first data page (property, real file)', async () => {
    const path = join(f.root, 's', 'r', 'by-hand');
    const size = statSync(path).size;
    const { rowGroupStarts } = await footer(path);
    expect(rowGroupStarts).to.have.length(13);
    // Ranges that start or end exactly at a row group's first data page, and anywhere else.
    const points = fc.oneof(fc.integer({ min: 1, max: size - 1 }), fc.constantFrom(...rowGroupStarts!.filter((p) => p > 0)), fc.constantFrom(...rowGroupStarts!.filter((p) => p > 0).map((p) => p + 1)));
    await fc.assert(fc.asyncProperty(fc.uniqueArray(points, { maxLength: 8 }), async (cuts) => {
      const bounds = [0, ...cuts.sort((a, b) => a - b), size];
      const splits = bounds.slice(1).map((end, i) => ({ file: 'by-hand', slice: 0, slices: 1, start: bounds[i]!, length: end - bounds[i]! }));
      const [[count, distinct, min, max]] = (await read('r', splits, 'count(*), count(DISTINCT x), min(x), max(x)')) as [[bigint, bigint, bigint, bigint]];
      expect([count, distinct, min, max].map(Number)).to.deep.equal([50_000, 50_000, 0, 49_999]);
    }), { numRuns: 25 });
  });

  it('maps a byte range to the contiguous rows of the row groups starting in it (property)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 1000 })), { maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 40_000 }), { maxLength: 10 }), (groups, cuts) => {
      const rows = groups.map(([r]) => r);
      let at = 4;
      const starts = groups.map(([, bytes]) => (at += bytes) - bytes);
      const bounds = [0, ...[...new Set(cuts)].sort((a, b) => a - b), at + 1];
      let next = 0;
      for (let i = 1; i < bounds.length; i++) {
        const range = rowGroupsInRange(rows, starts, bounds[i - 1]!, bounds[i]! - bounds[i - 1]!);
        if (range.end === range.start) continue;
        expect(range.start).to.equal(next);
        next = range.end;
      }
      expect(next).to.equal(rows.reduce((a, b) => a + b, 0));
    }));
  });

  it('splits a table by its pruned partitions\' files, text whole', () => {
    const whole = hiveTableSplits(f.config, 's', 'p')!;
    expect([whole.splits.length, whole.partitions]).to.deep.equal([3, 3]);
    expect(whole.splits.every((s) => s.start === 0)).to.equal(true);
    expect(whole.bytes).to.equal(whole.splits.reduce((a, s) => a + s.length, 0));
    const where = { type: 'ComparisonExpression', operator: '=', left: { type: 'Identifier', value: 'k' }, right: { type: 'StringLiteral', value: 'b' } };
    const one = hiveTableSplits(f.config, 's', 'p', where as never)!;
    expect([one.splits.length, one.partitions, one.splits[0]!.file.split('/')[0]]).to.deep.equal([1, 1, 'k=b']);
    expect(hiveTableSplits({ ...f.config, maxInitialSplitSizeBytes: 10, maxSplitSizeBytes: 10 }, 's', 'c')!.splits).to.have.length(1);
  });

  it('lists and checks only the partitions the WHERE clause leaves, and a task only those its splits name', async () => {
    await f.run("CREATE TABLE lake.s.q WITH (partitioned_by = ARRAY['k']) AS SELECT x, k FROM (VALUES (1, 'a'), (2, 'b')) AS t (x, k)");
    const where = { type: 'ComparisonExpression', operator: '=', left: { type: 'Identifier', value: 'k' }, right: { type: 'StringLiteral', value: 'a' } };
    const [split] = hiveTableSplits(f.config, 's', 'q', where as never)!.splits;
    // Partition b's directory becomes a symlink out of the root: any statement that lists it fails.
    const b = join(f.root, 's', 'q', 'k=b');
    renameSync(b, `${b}.moved`);
    cpSync(`${b}.moved`, join(f.directory, 'outside'), { recursive: true });
    symlinkSync(join(f.directory, 'outside'), b);
    try {
      expect(hiveTableFiles(f.config, 's', 'q'), 'the whole table').to.equal(undefined);
      expect(hiveTableSplits(f.config, 's', 'q', where as never)!.splits.map((s) => s.file.split('/')[0])).to.deep.equal(['k=a']);
      const sql = await hiveSplitSourceSql(catalog, 's', 'q', [{ file: split!.file, slice: 0, slices: 1 }], footer);
      expect(await f.direct(`SELECT x, k FROM (${sql})`)).to.deep.equal([[1, 'a']]);
    } finally {
      rmSync(b);
      renameSync(`${b}.moved`, b);
    }
  });

  it('reads a split\'s column its file holds in a type Trino does not read as declared as Trino\'s NOT_SUPPORTED, the other columns as before', async () => {
    await f.run('CREATE TABLE lake.s.m (x bigint, y varchar)');
    await f.direct(`COPY (SELECT 'one' AS x, 2 AS y) TO '${join(f.root, 's', 'm', 'other-tool')}' (FORMAT parquet)`);
    const [split] = hiveTableSplits(f.config, 's', 'm')!.splits;
    const sql = await hiveSplitSourceSql(catalog, 's', 'm', [{ file: split!.file, slice: 0, slices: 1 }], footer);
    const failure = (select: string) => f.direct(`SELECT ${select} FROM (${sql})`).then(() => 'read', (err: Error) => err.message);
    expect(await failure('x')).to.include('NOT_SUPPORTED: Unsupported Trino column type (bigint) for Parquet column ([x] optional binary x (STRING))');
    expect(await failure('y')).to.include('NOT_SUPPORTED: Reading Trino column (varchar) from Parquet column ([y] optional int32 y (INTEGER(32,true)))');
    expect(await f.direct(`SELECT count(*)::INTEGER FROM (${sql})`)).to.deep.equal([[1]]);
  });

  it('prunes files by "$path" as the hidden column spells it, beside the partition predicates', () => {
    const all = hiveTableSplits(f.config, 's', 'p')!.splits.map((s) => s.file);
    const path = (file: string) => `local:///s/p/${file}`;
    const where = (sql: string) => parseExpression(sql);
    const files = (sql: string) => hiveTableSplits(f.config, 's', 'p', where(sql))!.splits.map((s) => s.file);
    expect(files(`"$path" = '${path(all[0]!)}'`)).to.deep.equal([all[0]]);
    expect(files(`"$PATH" IN ('${path(all[0]!)}', '${path(all[2]!)}') AND k IS NOT NULL`).sort()).to.deep.equal([all[0], all[2]].filter((p) => !p!.startsWith('k=__HIVE')).sort());
    expect(files(`"$path" = 'local:///s/p/nothing'`)).to.deep.equal([]);
    expect(files(`"$path" = '${path(all[0]!)}' OR x = 1`).sort(), 'unsure: every file').to.deep.equal([...all].sort());
    expect(files(`"$path" LIKE '%'`).sort()).to.deep.equal([...all].sort());
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

  it('reads a text file whole, by its first slice or the range from its byte 0', async () => {
    const [file] = hiveTableFiles(f.config, 's', 'c')!.files;
    expect(await read('c', [{ file: file!, slice: 0, slices: 2 }], 'count(*)')).to.deep.equal([[2n]]);
    expect(await read('c', [{ file: file!, slice: 1, slices: 2 }], 'count(*)')).to.deep.equal([[0n]]);
    expect(await read('c', [{ file: file!, slice: 0, slices: 1, start: 0, length: 2 }], 'count(*)')).to.deep.equal([[2n]]);
    expect(await read('c', [{ file: file!, slice: 0, slices: 1, start: 2, length: 100 }], 'count(*)')).to.deep.equal([[0n]]);
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

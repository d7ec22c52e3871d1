// The SQL a leaf reads its splits of tpch's parts with (tpch-connector.ts): slices of one Parquet file,
// contiguous runs of its rows when its row count is known (modulo otherwise), read by a real DuckDB, cover
// every row once.
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sliceStart, splitSourceSql, tpchConnector } from '../../../lib/connectors/tpch/tpch-connector.js';
import type { Split } from '../../../lib/connectors/connector.types.js';

describe('tpch connector: a worker\'s SQL over its splits of a Parquet part', function () {
  this.timeout(30_000);
  const ROWS = 50_000;
  let directory: string;
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  let file: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-stage-sql-'));
    file = join(directory, 'part.parquet');
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    await connection.run(`COPY (SELECT range AS k FROM range(${ROWS})) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
  });
  after(() => {
    connection.closeSync();
    instance.closeSync();
    rmSync(directory, { recursive: true, force: true });
  });

  const sliceKeys = async (slice: number, slices: number, rows: number | undefined) => {
    const split: Split = { file: 'part.parquet', slice, slices, ...(rows === undefined ? {} : { rows }) };
    const sql = splitSourceSql([split], (f) => join(directory, f));
    const reader = await connection.runAndReadAll(`SELECT min(k), max(k), count(*), sum(k) FROM (${sql})`);
    const [min, max, count, sum] = reader.getRows()[0]!;
    return { min: Number(min), max: Number(max), count: Number(count), sum: Number(sum), sql };
  };

  it('cuts a file whose rows the split carries into contiguous runs that cover every row once', async () => {
    for (const slices of [2, 3, 7]) {
      let next = 0;
      let total = 0;
      for (let slice = 0; slice < slices; slice++) {
        const got = await sliceKeys(slice, slices, ROWS);
        expect(got.sql).to.include('file_row_number >=').and.not.include('%');
        expect(got.min, `${slice}/${slices}`).to.equal(next);
        expect(got.max - got.min + 1).to.equal(got.count);
        next = got.max + 1;
        total += got.count;
      }
      expect(total).to.equal(ROWS);
      expect(next).to.equal(ROWS);
    }
  });

  it('falls back to every n-th row when the split carries no row count (a manifest written before fileRows)', async () => {
    let total = 0;
    for (let slice = 0; slice < 3; slice++) {
      const got = await sliceKeys(slice, 3, undefined);
      expect(got.sql).to.include('% 3 = ');
      expect(got.min).to.equal(slice);
      total += got.count;
    }
    expect(total).to.equal(ROWS);
  });

  it('slice starts partition [0, rows) for any row count and slice count', () => {
    fc.assert(fc.property(fc.nat(1e12), fc.integer({ min: 1, max: 1024 }), (rows, slices) => {
      expect(sliceStart(rows, 0, slices)).to.equal(0);
      expect(sliceStart(rows, slices, slices)).to.equal(rows);
      for (let i = 0; i < Math.min(slices, 50); i++) expect(sliceStart(rows, i + 1, slices)).to.be.at.least(sliceStart(rows, i, slices));
    }));
  });
});

describe('tpch connector: the layout\'s partitioning', () => {
  // No cache here: the parts are the generator's planned ones (tpch-parts.ts).
  const connector = tpchConnector({ name: 'tpch', connector: 'tpch', directory: join(tmpdir(), 'vivace-no-tpch-layout') }, { tpchMinRows: 0 });
  const layout = (schema: string, table: string) => connector.tableLayout!({ catalog: 'tpch', schema, table });

  it('says lineitem\'s and orders\' parts are cut on orderkey where each has several (sf1: 6 and 2), as Trino\'s tpch connector partitions them', () => {
    for (const table of ['lineitem', 'orders']) {
      expect(layout('sf1', table)?.partitionedOn, table).to.equal('orderkey');
      expect(layout('sf10', table)?.partitionedOn, table).to.equal('orderkey');
      // One part (tiny, sf0.1): its co-partitioned plan spreads where reading it whole would be one task.
      for (const schema of ['tiny', 'sf0.1']) {
        expect(layout(schema, table), schema).to.not.equal(undefined);
        expect(layout(schema, table)!.partitionedOn, `${schema} ${table}`).to.equal(undefined);
      }
    }
    for (const table of ['partsupp', 'part', 'customer', 'supplier', 'nation', 'region']) expect(layout('sf1', table)?.partitionedOn, table).to.equal(undefined);
  });
});


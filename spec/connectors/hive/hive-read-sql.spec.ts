// The SQL a lake table is read through (hive-read-sql.ts): a partitioned Parquet table is one scan with its
// partition values from the directories, and columns are matched across files by name, reading every
// footer at bind, only when the files are not known to share their columns.
import { expect } from 'chai';
import { tableReadSql, type ReadableTable } from '../../../lib/connectors/hive/hive-read-sql.js';
import { parseHiveType } from '../../../lib/connectors/hive/hive-types.js';
import type { HiveTableProperties } from '../../../lib/connectors/hive/hive-table-properties.js';

const table = (overrides: Partial<ReadableTable>): ReadableTable => ({
  properties: { format: 'PARQUET' } as HiveTableProperties,
  dataColumns: [{ name: 'x', hive: parseHiveType('bigint') }],
  partitionColumns: [{ name: 'k', hive: parseHiveType('int') }],
  partitions: [{ values: ['1'], files: ['/r/t/k=1/a'] }, { values: ['2'], files: ['/r/t/k=2/b'] }],
  ...overrides,
});

describe('hive connector: read SQL', () => {
  it('reads a partitioned Parquet table as one scan with its partition values typed from the directories', () => {
    const sql = tableReadSql(table({}));
    expect(sql).to.equal(`SELECT CAST("x" AS BIGINT) AS "x", "k" FROM read_parquet(['/r/t/k=1/a', '/r/t/k=2/b'], union_by_name = true, hive_partitioning = true, hive_types = {'k': 'INTEGER'}, hive_types_autocast = false)`);
  });

  it('matches columns by name without reading every footer when all files are known alike', () => {
    expect(tableReadSql(table({ sameColumns: true, presentColumns: new Set(['x']) }))).to.include('union_by_name = false');
    expect(tableReadSql(table({ sameColumns: false, presentColumns: new Set(['x']) }))).to.include('union_by_name = true');
    // A column no file has reads NULL whatever the files share.
    expect(tableReadSql(table({ sameColumns: true, presentColumns: new Set(['y']) }))).to.include('CAST(NULL AS BIGINT) AS "x"');
  });

  it('keeps a branch per partition for one partition, text formats and a split\'s rows', () => {
    expect(tableReadSql(table({ partitions: [{ values: ['1'], files: ['/r/t/k=1/a'] }] }))).to.include("CAST('1' AS INTEGER) AS \"k\"");
    expect(tableReadSql(table({ partitions: [{ values: ['1'], files: ['/r/t/k=1/a'], rows: { start: 0, end: 10 } }] }))).to.include('file_row_number >= 0 AND file_row_number < 10');
  });
});

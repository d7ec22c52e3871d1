// SHOW STATS FOR table / (query): Trino's statistics rows, computed exactly (distinct values estimated
// with DuckDB's HyperLogLog) in one aggregate pass over the statement's translation. One row per column
// and a summary row (column_name NULL) holding the row count, with Trino's columns and types.
import { DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api';
import type { OutputColumn } from '../../protocol/types.js';
import type { ShowResult } from './show-metadata.js';
import type { Cell } from './values-plan.js';
import { quoteIdentifier } from '../../sql/sql-formatter.js';
import type { PrestoType } from '../../protocol/types.js';
import type { TableStatistics } from '../../connectors/table-statistics.js';
import { javaDoubleText, javaFloatText } from '../../protocol/java-float-text.js';

export const SHOW_STATS_COLUMNS: OutputColumn[] = [
  { name: 'column_name', type: { base: 'varchar' } },
  { name: 'data_size', type: { base: 'double' } },
  { name: 'distinct_values_count', type: { base: 'double' } },
  { name: 'nulls_fraction', type: { base: 'double' } },
  { name: 'row_count', type: { base: 'double' } },
  { name: 'low_value', type: { base: 'varchar' } },
  { name: 'high_value', type: { base: 'varchar' } },
];

/** Types whose low and high values Trino shows (numbers and dates); others leave them NULL. */
const RANGED: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE, DuckDBTypeId.DECIMAL, DuckDBTypeId.DATE,
]);
/** Types whose data size Trino reports (variable width). */
const SIZED: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.VARCHAR, DuckDBTypeId.BLOB]);

/** The statistics of the rows of `sql` (the project's translation of `SELECT * FROM <relation>`). */
export async function showStats(connection: DuckDBConnection, sql: string): Promise<ShowResult> {
  const prepared = await connection.prepare(sql);
  const columns: { name: string; type: DuckDBTypeId }[] = [];
  try {
    for (let i = 0; i < prepared.columnCount; i++) columns.push({ name: prepared.columnName(i), type: prepared.columnType(i).typeId });
  } finally {
    prepared.destroySync();
  }
  // Columns by position (the names may repeat): vivace_q(c0, c1, ...).
  const refs = columns.map((_, i) => quoteIdentifier(`c${i}`));
  const aggregates = columns.flatMap((c, i) => {
    const ref = refs[i]!;
    return [
      SIZED.has(c.type) ? `sum(octet_length(CAST(${ref} AS BLOB)))::DOUBLE` : 'NULL::DOUBLE',
      `approx_count_distinct(${ref})::DOUBLE`,
      `count(${ref})`,
      RANGED.has(c.type) ? `min(${ref})::VARCHAR` : 'NULL::VARCHAR',
      RANGED.has(c.type) ? `max(${ref})::VARCHAR` : 'NULL::VARCHAR',
    ];
  });
  const reader = await connection.runAndReadAll(`SELECT count(*)${aggregates.map((a) => `, ${a}`).join('')} FROM (${sql}) AS vivace_q(${refs.join(', ')})`);
  const values = reader.getRowsJS()[0] ?? [];
  const rowCount = Number(values[0] ?? 0);
  const rows: Cell[][] = columns.map((c, i) => {
    const [size, distinct, nonNull, low, high] = values.slice(1 + i * 5, 6 + i * 5);
    const nullsFraction = rowCount === 0 ? null : (rowCount - Number(nonNull)) / rowCount;
    return [c.name, size === null ? null : Number(size), Number(distinct), nullsFraction, null, low as Cell, high as Cell];
  });
  rows.push([null, null, null, null, rowCount, null, null]);
  return { columns: SHOW_STATS_COLUMNS, rows };
}

/**
 * SHOW STATS of a connector's statistics (a hive table's footers), as Trino's ShowStatsRewrite renders a
 * table scan's estimate: a row per column (unknown estimates NULL; low and high by the column's type:
 * integers rounded, double and decimal as Java's Double.toString, real as Float.toString, a date as
 * its ISO day) and the summary row with the row count.
 */
export function connectorStats(columns: readonly { name: string; type: PrestoType }[], statistics: TableStatistics): ShowResult {
  const known = (x: number | undefined): number | null => (x === undefined || !Number.isFinite(x) ? null : x);
  const rows: Cell[][] = columns.map((c) => {
    const s = statistics.columns.get(c.name) ?? {};
    return [c.name, known(s.dataSize), known(s.distinctValuesCount), known(s.nullsFraction), null, rangeText(c.type, s.range?.low), rangeText(c.type, s.range?.high)];
  });
  rows.push([null, null, null, null, known(statistics.rowCount), null, null]);
  return { columns: SHOW_STATS_COLUMNS, rows };
}

/** A range end as ShowStatsRewrite.toStringLiteral writes it for `type`; NULL for other types. */
function rangeText(type: PrestoType, value: number | undefined): string | null {
  if (value === undefined || !Number.isFinite(value)) return null;
  switch (type.base) {
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'bigint':
      return BigInt(Math.round(value)).toString();
    case 'double':
    case 'decimal':
      return javaDoubleText(value);
    case 'real':
      return javaFloatText(value);
    case 'date':
      return new Date(Math.round(value) * 86_400_000).toISOString().slice(0, 10);
    default:
      return null;
  }
}

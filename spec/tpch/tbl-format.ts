// Test helper: prints row values the way dbgen's .tbl files do, so expected
// rows can be written as dbgen output lines.
import { tpchTable } from '../../lib/tpch/tpch-tables.js';

// Double columns printed with two decimals by dbgen (quantity prints as an integer).
const MONEY = new Set(['acctbal', 'retailprice', 'supplycost', 'totalprice', 'extendedprice', 'discount', 'tax']);

export function toTblLine(table: string, values: readonly unknown[]): string {
  const columns = tpchTable(table).columns;
  return values
    .map((v, i) => (MONEY.has(columns[i].name) ? (v as number).toFixed(2) : String(v)))
    .join('|') + '|';
}

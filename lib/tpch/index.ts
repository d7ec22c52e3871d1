// TPC-H data generator producing dbgen's data value for value (as the Java
// port behind Presto's and Trino's tpch connectors), for any part of a table.
// Row values: keys/integers as numbers, money as doubles of the exact cents
// value, dates as 'YYYY-MM-DD'. The first generator of a process builds the
// 300 MiB text pool synchronously (about 2-3 s), then keeps it in memory.
export { TPCH_TABLES, tpchTable } from './tpch-tables.js';
export type { TpchColumn, TpchColumnType, TpchTable, TpchTableName } from './tpch-tables.js';
export { rowCount } from './row-count.js';
export { generateRows } from './generate-rows.js';
export { writeTableCsv } from './csv-writer.js';
export type { CsvOptions } from './csv-writer.js';
export { createGenerator } from './generator-factory.js';
export type { TpchRowGenerator } from './row-generator.js';
export { getTextPool } from './text-pool.js';

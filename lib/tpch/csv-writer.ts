import { closeSync, openSync } from 'node:fs';
import { ByteWriter } from './byte-writer.js';
import { createGenerator } from './generator-factory.js';
import { MAX_ROW_BYTES } from './row-generator.js';
import { tpchTable } from './tpch-tables.js';

export interface CsvOptions {
  /** Write a first line of column names (default false, like dbgen's .tbl). */
  readonly header?: boolean;
}

/**
 * Writes part `part` of `partCount` of a table to `filePath` as '|'-delimited
 * lines without quoting (no generated value contains '|', '"' or a newline) and,
 * unlike dbgen's .tbl, without a trailing '|'. Money has two decimals, dates are
 * YYYY-MM-DD. Synchronous and CPU-bound: run it in a worker or child process
 * when the event loop matters. Returns the number of rows written.
 * Parts without rows (region and nation beyond part 1) give empty files, so
 * DuckDB should read them with explicit columns and auto_detect=false.
 */
export function writeTableCsv(
  table: string,
  scaleFactor: number,
  part: number,
  partCount: number,
  filePath: string,
  options: CsvOptions = {},
): number {
  const generator = createGenerator(table, scaleFactor, part, partCount);
  const fd = openSync(filePath, 'w');
  try {
    const out = new ByteWriter(fd);
    if (options.header === true) {
      out.ascii(tpchTable(table).columns.map((c) => c.name).join('|') + '\n');
    }
    let rows = 0;
    while (generator.next()) {
      out.reserve(MAX_ROW_BYTES);
      generator.write(out);
      rows++;
    }
    out.flush();
    return rows;
  } finally {
    closeSync(fd);
  }
}

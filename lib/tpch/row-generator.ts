import type { ByteWriter } from './byte-writer.js';

/**
 * A table generator as a cursor: `next()` computes the next row into the
 * generator's fields (numbers and pool offsets, no strings), then either
 * `values()` materialises it or `write()` prints it as a delimited line.
 */
export interface TpchRowGenerator {
  next(): boolean;
  /** The current row, one value per column in column order. */
  values(): unknown[];
  /** The current row as `v1|v2|...|vn\n`. */
  write(out: ByteWriter): void;
}

/** Upper bound of one printed row of any table, for ByteWriter.reserve. */
export const MAX_ROW_BYTES = 1024;

export const DELIMITER = 0x7c; // '|'
export const NEWLINE = 0x0a;

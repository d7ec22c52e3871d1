import { createGenerator } from './generator-factory.js';

/**
 * Rows of part `part` (1-based) of `partCount` of a TPC-H table, one array per
 * row in column order: keys and integers as numbers, money as doubles of the
 * exact cents value, dates as 'YYYY-MM-DD' strings. region and nation are not
 * scaled: all their rows are in part 1 and other parts are empty.
 */
export function* generateRows(table: string, scaleFactor: number, part: number, partCount: number): Generator<unknown[]> {
  const generator = createGenerator(table, scaleFactor, part, partCount);
  while (generator.next()) yield generator.values();
}

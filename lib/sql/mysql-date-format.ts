// Presto's date_format / date_parse speak MySQL's format specifiers; DuckDB's strftime / strptime speak C's.

/**
 * MySQL date_format specifiers (Presto date_format/date_parse) -> strftime/strptime. Translated via
 * placeholders (chr(1) for '%%', chr(2) for '%') so a translated specifier is never translated again.
 */
export const MYSQL_TO_STRFTIME: readonly [string, string][] = [
  ['a', '%a'], ['b', '%b'], ['c', '%-m'], ['d', '%d'], ['e', '%-d'], ['f', '%f'], ['H', '%H'], ['h', '%I'],
  ['I', '%I'], ['i', '%M'], ['j', '%j'], ['k', '%-H'], ['l', '%-I'], ['M', '%B'], ['m', '%m'], ['p', '%p'],
  ['r', '%I:%M:%S %p'], ['S', '%S'], ['s', '%S'], ['T', '%H:%M:%S'], ['v', '%V'], ['W', '%A'], ['w', '%w'],
  ['x', '%G'], ['Y', '%Y'], ['y', '%y'],
];

/** The same translation in JavaScript, for a constant format (date_parse: strptime wants a constant). */
export function mysqlToStrftime(format: string): string {
  const table = new Map(MYSQL_TO_STRFTIME);
  return format.replace(/%(.)/gs, (m, c: string) => (c === '%' ? '%%' : (table.get(c) ?? m)));
}

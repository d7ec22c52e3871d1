// The tpch connector's metadata as Trino's TpchMetadata declares it: the schemas it lists, the schema
// names it accepts (`tiny`, or `sf` and any number Java's Double.parseDouble reads that is above zero:
// sf0.1, sf3000, sf1e3), and every column's Trino type with the varchar bounds of the TPC-H library
// (lineitem.comment varchar(44)). DuckDB keeps no varchar length, so the listings (SHOW COLUMNS,
// DESCRIBE, SHOW CREATE TABLE, information_schema.columns, system.jdbc.columns) read the types here,
// and so can the query side (tpchColumnType).
import type { PrestoType } from '../../protocol/types.js';
import { TPCH_TABLES, type TpchColumn } from '../../tpch/index.js';

export const TPCH_CATALOG = 'tpch';

/** What SHOW SCHEMAS lists (TpchMetadata.SCHEMA_NAMES, in its order); sf10 and others are accepted, not listed. */
export const TPCH_LISTED_SCHEMAS: readonly string[] = ['tiny', 'sf1', 'sf100', 'sf300', 'sf1000', 'sf3000', 'sf10000', 'sf30000', 'sf100000'];

const TINY = 'tiny';
const TINY_SCALE_FACTOR = 0.01;

export const TPCH_TABLE_NAMES: readonly string[] = TPCH_TABLES.map((t) => t.name);

/**
 * The scale factor of a tpch schema name, or undefined for a name the connector refuses. Trino folds
 * names to lower case before the connector sees them, and so does this.
 */
export function tpchScaleFactor(schema: string): number | undefined {
  const name = schema.toLowerCase();
  if (name === TINY) return TINY_SCALE_FACTOR;
  if (!name.startsWith('sf')) return undefined;
  const value = parseJavaDouble(name.slice(2));
  return value !== undefined && value > 0 ? value : undefined;
}

/**
 * Where a scale factor's data lives under the catalog's directory: one directory per scale factor
 * however it is spelled (sf1, sf1.0 and sf01 share sf1; sf0.01 shares tiny). No '-' in the name:
 * the temporary directories of a generation are `.tmp-<name>-<pid>-...`.
 */
export function tpchDirectoryName(scaleFactor: number): string {
  if (scaleFactor === TINY_SCALE_FACTOR) return TINY;
  return `sf${String(scaleFactor).replace('e-', 'em').replace('e+', 'e')}`;
}

const typeOf = (c: TpchColumn): PrestoType => (c.type === 'varchar' ? { base: 'varchar', length: c.length } : { base: c.type });

const COLUMNS = new Map<string, readonly { name: string; type: PrestoType }[]>(
  TPCH_TABLES.map((t) => [t.name, t.columns.map((c) => ({ name: c.name, type: typeOf(c) }))]),
);
const COLUMN_TYPES = new Map<string, PrestoType>(
  [...COLUMNS].flatMap(([table, columns]) => columns.map((c): [string, PrestoType] => [`${table}.${c.name}`, c.type])),
);

/** A tpch table's columns with their Trino types, in the connector's order; undefined for another name. */
export function tpchTableColumns(table: string): readonly { name: string; type: PrestoType }[] | undefined {
  return COLUMNS.get(table.toLowerCase());
}

/**
 * The Trino type the tpch connector declares for `schema.table.column` (varchar(44) for
 * tiny.lineitem.comment), or undefined when the schema, table or column is not the connector's.
 */
export function tpchColumnType(schema: string, table: string, column: string): PrestoType | undefined {
  if (tpchScaleFactor(schema) === undefined) return undefined;
  return COLUMN_TYPES.get(`${table.toLowerCase()}.${column.toLowerCase()}`);
}

// ---- The hidden row_number column (TpchMetadata.ROW_NUMBER_COLUMN_NAME) ----

/**
 * Every tpch table has a hidden bigint `row_number`: not in SELECT *, DESCRIBE or any listing, but a
 * statement may name it. Its value is the generator's row number (TpchEntity.getRowNumber), which is a
 * function of the row's keys, so it is computed, never stored: region and nation their 0-based index
 * (= the key), supplier, customer and part their key, partsupp its part's key, orders the 1-based order
 * index its sparse orderkey encodes (dbgen's makeOrderKey keeps 3 low bits and skips 2), and lineitem
 * its order's index, shared by the lines of one order.
 */
export const TPCH_ROW_NUMBER = 'row_number';

const ORDER_INDEX = '("orderkey" // 32) * 8 + "orderkey" % 8';
const ROW_NUMBER_SQL: Readonly<Record<string, string>> = {
  region: '"regionkey"', nation: '"nationkey"', supplier: '"suppkey"', customer: '"custkey"',
  part: '"partkey"', partsupp: '"partkey"', orders: ORDER_INDEX, lineitem: ORDER_INDEX,
};

/**
 * The hidden columns of a tpch table, each with the DuckDB SQL computing it over the table's own
 * columns; undefined when the schema or table is not the connector's.
 */
export function tpchHiddenColumns(schema: string, table: string): readonly { name: string; sql: string }[] | undefined {
  const name = table.toLowerCase();
  if (tpchScaleFactor(schema) === undefined || !Object.hasOwn(ROW_NUMBER_SQL, name)) return undefined;
  return [{ name: TPCH_ROW_NUMBER, sql: `CAST(${ROW_NUMBER_SQL[name]!} AS BIGINT)` }];
}

// ---- Java's Double.parseDouble (FloatingDecimal.readJavaFormatString), which TpchMetadata uses ----

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHexDigit = (c: string | undefined) => c !== undefined && (isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));

/** Index after a run of characters satisfying `test` from `at`. */
function skip(text: string, at: number, test: (c: string | undefined) => boolean): number {
  let i = at;
  while (test(text[i])) i++;
  return i;
}

/** Index after an optional [fFdD] suffix, when that is the end of the text; -1 otherwise. */
function end(text: string, at: number): number {
  const i = 'fFdD'.includes(text[at] ?? '-') ? at + 1 : at;
  return i === text.length ? i : -1;
}

/**
 * The double Java reads from `text`, or undefined where Java throws NumberFormatException. Surrounding
 * characters up to U+0020 are trimmed; a sign; NaN, Infinity, decimal digits with an optional point and
 * exponent, or hexadecimal with a binary exponent; an optional f/F/d/D suffix. One pass, no backtracking.
 */
export function parseJavaDouble(input: string): number | undefined {
  let from = 0;
  let to = input.length;
  while (from < to && input.charCodeAt(from) <= 0x20) from++;
  while (to > from && input.charCodeAt(to - 1) <= 0x20) to--;
  const text = input.slice(from, to);
  const negative = text[0] === '-';
  const start = text[0] === '-' || text[0] === '+' ? 1 : 0;
  const body = text.slice(start);
  const sign = negative ? -1 : 1;
  if (body === 'NaN') return Number.NaN;
  if (body === 'Infinity') return sign * Number.POSITIVE_INFINITY;
  if (body[0] === '0' && (body[1] === 'x' || body[1] === 'X')) {
    const value = parseHex(body.slice(2));
    return value === undefined ? undefined : sign * value;
  }
  const integerEnd = skip(body, 0, isDigit);
  let at = integerEnd;
  let digits = integerEnd;
  if (body[at] === '.') {
    const fractionEnd = skip(body, at + 1, isDigit);
    digits += fractionEnd - at - 1;
    at = fractionEnd;
  }
  if (digits === 0) return undefined;
  if (body[at] === 'e' || body[at] === 'E') {
    const signed = body[at + 1] === '+' || body[at + 1] === '-' ? at + 2 : at + 1;
    const exponentEnd = skip(body, signed, isDigit);
    if (exponentEnd === signed) return undefined;
    at = exponentEnd;
  }
  if (end(body, at) < 0) return undefined;
  // The grammar is checked: JavaScript reads the same digits to the same nearest double.
  return sign * Number(body.slice(0, at));
}

/** `HexDigits? (. HexDigits?)? [pP] [+-]? Digits [fFdD]?` after 0x, with at least one hex digit. */
function parseHex(body: string): number | undefined {
  const integerEnd = skip(body, 0, isHexDigit);
  let fraction = '';
  let at = integerEnd;
  if (body[at] === '.') {
    const fractionEnd = skip(body, at + 1, isHexDigit);
    fraction = body.slice(at + 1, fractionEnd);
    at = fractionEnd;
  }
  const mantissa = body.slice(0, integerEnd) + fraction;
  if (mantissa.length === 0 || (body[at] !== 'p' && body[at] !== 'P')) return undefined;
  const signed = body[at + 1] === '+' || body[at + 1] === '-' ? at + 2 : at + 1;
  const exponentEnd = skip(body, signed, isDigit);
  if (exponentEnd === signed || end(body, exponentEnd) < 0) return undefined;
  const exponent = Number(body.slice(at + 1, exponentEnd)) - 4 * fraction.length;
  // Through BigInt so a long mantissa keeps its leading bits; scaling by a power of two rounds nothing.
  return Number(BigInt(`0x${mantissa}`)) * 2 ** exponent;
}

// ---- The same facts as SQL, for the listings DuckDB answers (information_schema, system.jdbc) ----

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** `(VALUES ('tiny'), ...) AS <alias>(schema_name)`: the listed schemas. */
export function tpchSchemasSql(alias: string): string {
  return `(VALUES ${TPCH_LISTED_SCHEMAS.map((s) => `(${sqlString(s)})`).join(', ')}) AS ${alias}(schema_name)`;
}

/**
 * `(VALUES ('region', 'regionkey', 1, 'bigint'), ...) AS <alias>(table_name, column_name, ordinal_position, data_type)`:
 * every column with its Trino type's name (`varchar(44)`), which tpchTypeOfText reads back.
 */
export function tpchColumnsSql(alias: string): string {
  const rows = [...COLUMNS].flatMap(([table, columns]) =>
    columns.map((c, i) => `(${sqlString(table)}, ${sqlString(c.name)}, ${i + 1}, ${sqlString(TYPE_TEXT.get(c.type)!)})`));
  return `(VALUES ${rows.join(', ')}) AS ${alias}(table_name, column_name, ordinal_position, data_type)`;
}

const typeText = (t: PrestoType) => ('length' in t && t.length !== undefined ? `${t.base}(${t.length})` : t.base);
const TYPE_TEXT = new Map<PrestoType, string>([...COLUMN_TYPES.values()].map((t) => [t, typeText(t)]));
const TYPES_BY_TEXT = new Map<string, PrestoType>([...TYPE_TEXT].map(([t, text]) => [text, t]));

/** The type of a type name tpchColumnsSql wrote (`varchar(44)`, lower case, unlike DuckDB's texts); undefined for others. */
export function tpchTypeOfText(text: string): PrestoType | undefined {
  return TYPES_BY_TEXT.get(text);
}

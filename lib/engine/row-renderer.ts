// Builds the SQL that makes DuckDB render each result row as Presto JSON text (protocol.md section 9),
// so JavaScript only copies bytes. Measured (bench/engine-render.bench.ts, 5M rows x 16 lineitem-like
// columns, 2 cores, quiet machine): raw fetch 5.0M rows/s; DuckDB plain json_array 870k rows/s;
// this renderer ~900k rows/s inside DuckDB and 660-730k rows/s (~105-115 MB/s) through StreamingExecution.
// What mattered: one concat() per row instead of a chain of || (x1.5), BLOB rows copied into a page and
// decoded once per batch instead of a JS string per row (x1.25), streaming_buffer_size 4MB (x1.1).
// Per-row getItem()+join capped at ~470-560k rows/s. Under CPU contention all figures drop ~2-3x.
//
// Nested values: the SQL is linear in the size of the type, and needs no lambda nested in another but in
// rare shapes. DuckDB binds nested lambdas in time exponential in their depth (about x2 per level: 20
// levels take 0.1-0.2 s, 24 levels 3 s), and a macro using its parameter twice (array_to_string) doubles
// its argument per level: together they made a 16-deep ARRAY take 13-38 s and 1 GB. Now:
// - arrays and maps of numbers, strings, decimals, dates, ...: DuckDB's to_json of the value (cast to
//   VARCHAR/BIGINT leaves where Presto's JSON has a string or a bigint), any depth;
// - deeper than SHALLOW, rows in rows and arrays of such leaves: to_json and vivace_rows_json, one linear
//   pass over the text that turns row objects into arrays; arrays of arrays of doubles, timestamps, ...:
//   to_json of their text and one lambda formatting each string; rows of rows: one derived table per
//   level (Layers);
// - otherwise, element by element and field by field, a lambda per array or map: at most
//   MAX_ELEMENT_NESTING deep (arrays or maps around rows holding doubles, maps holding rows, ...).
// No result type nests deeper than MAX_TYPE_DEPTH.
import { DuckDBTypeId, type DuckDBDecimalType, type DuckDBType } from '@duckdb/node-api';
import { VivaceError } from '../protocol/vivace-error.js';
import type { PrestoType } from '../protocol/types.js';
import { UNDECLARED, type DeclaredOutput } from '../sql/declared-types.js';
import { zonedPrecision } from '../connectors/zoned-type.js';
import { localOf, zoneOf } from './zoned-overloads.js';
import { IP_ADDRESS_FUNCTIONS } from '../sql/ip-address.js';
import { isIpAddressType } from '../connectors/duckdb-types.js';
import { isSketchType } from '../sql/sketch-types.js';

/**
 * Deepest result type rendered: levels of arrays, maps and rows. Trino has no such limit; DuckDB's own
 * (max_expression_depth 1000) stops rows near 190 levels. Rendering costs grow faster than linearly in
 * DuckDB's planner: 100 levels of rows holding a double render in ~0.9 s, 64 levels in ~0.3 s.
 */
export const MAX_TYPE_DEPTH = 100;

/**
 * Most lambdas (arrays and maps around values formatted one by one) nested in one column's rendering,
 * rows rendered field by field inside them included. Binding 16 nested lambdas takes DuckDB ~15 ms and
 * each level doubles it; a row inside a lambda repeats its expression per field and level.
 */
export const MAX_ELEMENT_NESTING = 16;

const quote = (e: string) => `'"' || ${e} || '"'`;
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const sqlName = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** A zone id that is safe inside SQL and JSON strings; anything odd falls back to UTC. */
export function safeZone(zone: string | undefined): string {
  return zone && /^[\w/+\-:]{1,64}$/.test(zone) ? zone : 'UTC';
}

/**
 * The Presto JSON text of zoned value `expr` (lib/sql/zoned-timestamps.ts) with `digits` fraction digits:
 * its local time in its own zone, then the zone (`"2020-01-02 03:04:05.000 America/New_York"`).
 */
function zonedJson(expr: string, fieldPrecision: number, digits: number): string {
  const nanos = fieldPrecision === 9;
  // A TIMESTAMP_NS is within 1677-2262 (and compares with year 10000 only by failing).
  const text = nanos ? `strftime(${localOf(expr, fieldPrecision)}, '%Y-%m-%d %H:%M:%S.%n')` : timestampText(localOf(expr, fieldPrecision), '-%m-%d %H:%M:%S.%f');
  const full = nanos ? 9 : 6;
  const p = Math.min(digits, full);
  // Digits past nanoseconds are zeros (timestamp(12) values DuckDB holds to the nanosecond).
  const shown = `${dropLast(text, p === 0 ? full + 1 : full - p)}${digits > full ? ` || '${'0'.repeat(digits - full)}'` : ''}`;
  // to_json quotes the zone's text whatever it holds (a stored row could hold any).
  return `CASE WHEN ${expr} IS NULL THEN NULL ELSE to_json(${shown} || ' ' || ${zoneOf(expr)})::VARCHAR END`;
}

/** SQL: the sign and 4+ digits of ISO year `y` as Trino writes it (`-0001`, `0000`, `+10000`). */
const isoYear = (y: string) => `(CASE WHEN ${y} < 0 THEN '-' WHEN ${y} > 9999 THEN '+' ELSE '' END) || printf('%04d', abs(${y}))`;

/** SQL: Trino's text of DATE `d`: DuckDB's own in years 1 to 9999, ISO years beyond (DuckDB writes `2002-08-22 (BC)`); infinity as DuckDB writes it. */
const dateText = (d: string) =>
  `CASE WHEN ${d} BETWEEN DATE '0001-01-01' AND DATE '9999-12-31' THEN ${d}::VARCHAR ELSE coalesce(${isoYear(`year(${d})`)} || strftime(${d}, '-%m-%d'), ${d}::VARCHAR) END`;

/** SQL: strftime of timestamp `t` with `format` after the year: `%Y` in years 1 to 9999, ISO years beyond (strftime writes `-9`). */
const timestampText = (t: string, format: string) =>
  `CASE WHEN ${t} >= TIMESTAMP '0001-01-01' AND ${t} < TIMESTAMP '10000-01-01' THEN strftime(${t}, '%Y${format}') ELSE coalesce(${isoYear(`year(${t})`)} || strftime(${t}, '${format}'), ${t}::VARCHAR) END`;

/**
 * SQL: time text `t` (`HH:MM:SS[.f...]`, DuckDB's VARCHAR of a TIME_NS or TIMETZ: at most `held` fraction
 * digits, trailing zeros dropped) with exactly `p` digits, zeros past what DuckDB holds.
 */
function exactFraction(t: string, held: number, p: number): string {
  if (p === 0) return `system.main.left(${t}, 8)`;
  const full = `system.main.rpad(CASE WHEN length(${t}) = 8 THEN ${t} || '.' ELSE ${t} END, ${9 + held}, '0')`;
  return p <= held ? `system.main.left(${full}, ${9 + p})` : `${full} || '${'0'.repeat(p - held)}'`;
}

/** SQL: Trino's text of DuckDB TIMETZ `expr` with `p` digits: DuckDB writes `HH:MM:SS[.ffffff]+HH[:MM]`, fraction zeros dropped; Trino `+HH:MM`. */
function timeWithZoneText(expr: string, p: number): string {
  const text = `(${expr}::VARCHAR)`;
  const sign = `greatest(strpos(${text}, '+'), strpos(${text}, '-'))`;
  const offset = `${text}[${sign}:]`;
  return `${exactFraction(`${text}[:${sign} - 1]`, 6, p)} || ${offset} || CASE WHEN length(${offset}) = 3 THEN ':00' ELSE '' END`;
}

/** The local time in the session's zone (a region or an offset) of DuckDB TIMESTAMPTZ `expr`. */
const sessionLocal = (expr: string, zone: string) => `vivace_local_us(timezone('UTC', ${expr}), ${sqlString(zone)})`;

/** Leaves whose Presto JSON is DuckDB's to_json of the value as it is. */
const PLAIN_LEAVES: ReadonlyMap<DuckDBTypeId, string> = new Map([
  [DuckDBTypeId.BOOLEAN, 'BOOLEAN'], [DuckDBTypeId.TINYINT, 'TINYINT'], [DuckDBTypeId.SMALLINT, 'SMALLINT'],
  [DuckDBTypeId.INTEGER, 'INTEGER'], [DuckDBTypeId.BIGINT, 'BIGINT'], [DuckDBTypeId.UTINYINT, 'UTINYINT'],
  [DuckDBTypeId.USMALLINT, 'USMALLINT'], [DuckDBTypeId.UINTEGER, 'UINTEGER'],
]);

/** Formatted leaves whose VARCHAR cast holds no '"' or '\' and casts back to the same value. */
const TEXT_ROUND_TRIP: ReadonlyMap<DuckDBTypeId, string> = new Map([
  [DuckDBTypeId.FLOAT, 'REAL'], [DuckDBTypeId.DOUBLE, 'DOUBLE'], [DuckDBTypeId.TIME, 'TIME'], [DuckDBTypeId.TIMESTAMP, 'TIMESTAMP'],
  [DuckDBTypeId.TIMESTAMP_MS, 'TIMESTAMP_MS'], [DuckDBTypeId.TIMESTAMP_S, 'TIMESTAMP_S'], [DuckDBTypeId.TIMESTAMP_NS, 'TIMESTAMP_NS'],
  [DuckDBTypeId.TIMESTAMP_TZ, 'TIMESTAMPTZ'], [DuckDBTypeId.INTERVAL, 'INTERVAL'], [DuckDBTypeId.TIME_TZ, 'TIMETZ'],
]);

/** Leaves formatted one by one in SQL (jsonOrNull): DuckDB's to_json differs from Presto's JSON. */
const FORMATTED_LEAVES: ReadonlySet<DuckDBTypeId> = new Set([...TEXT_ROUND_TRIP.keys(), DuckDBTypeId.BLOB]);

/** The type to cast a value to so that to_json renders it as Presto does; `cast` false when it is the value's own. */
interface JsonCast {
  sql: string;
  cast: boolean;
}

/**
 * How `type` renders through to_json, or undefined when it cannot. `rows`: rows are allowed (their
 * objects become arrays in vivace_rows_json) and maps are not (their objects must stay objects).
 */
function jsonCast(type: DuckDBType, rows: boolean): JsonCast | undefined {
  // An ipaddress is a struct that renders as its text (jsonOrNull).
  if (isIpAddressType(type)) return undefined;
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const item = jsonCast(type.valueType, rows);
      return item && { sql: `${item.sql}[]`, cast: item.cast };
    }
    case DuckDBTypeId.MAP: {
      // to_json writes a key as its VARCHAR cast, which is Presto's key text (jsonOrNull's MAP case)
      // but for reals, doubles and varbinary (keyJson).
      if (TEXT_KEYS_DIFFER.has(type.keyType.typeId) || type.keyType.typeId === DuckDBTypeId.TIME_TZ || zonedPrecision(type.keyType) !== undefined) return undefined;
      const value = rows ? undefined : jsonCast(type.valueType, rows);
      return value && { sql: `MAP(VARCHAR, ${value.sql})`, cast: value.cast };
    }
    case DuckDBTypeId.STRUCT: {
      if (!rows || zonedPrecision(type) !== undefined) return undefined;
      // An unnamed row casts by position to any names; a named one casts by name to its own names.
      const unnamed = type.entryNames.every((n) => n === '');
      if (!unnamed && type.entryNames.some((n) => n === '')) return undefined;
      const fields: string[] = [];
      let cast = false;
      for (let i = 0; i < type.entryTypes.length; i++) {
        const field = jsonCast(type.entryTypes[i]!, rows);
        if (!field) return undefined;
        cast ||= field.cast;
        fields.push(`${unnamed ? `f${i + 1}` : sqlName(type.entryNames[i]!)} ${field.sql}`);
      }
      return { sql: `STRUCT(${fields.join(', ')})`, cast };
    }
    case DuckDBTypeId.HUGEINT:
      return { sql: 'BIGINT', cast: true };
    case DuckDBTypeId.VARCHAR:
      // JSON (an alias of VARCHAR) is sent as a string: to_json of the JSON type would embed it.
      return { sql: 'VARCHAR', cast: type.alias !== undefined };
    default: {
      const plain = PLAIN_LEAVES.get(type.typeId);
      if (plain) return { sql: plain, cast: false };
      // Strings in Presto's JSON: decimals, dates, uuids, unsigned 64-bit, enums, bits, anything else.
      return FORMATTED_LEAVES.has(type.typeId) ? undefined : { sql: 'VARCHAR', cast: true };
    }
  }
}

/** Levels of arrays, maps and rows in `type`: 0 for a scalar. */
function typeDepth(type: DuckDBType): number {
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.MAP:
      return 1 + typeDepth(type.valueType);
    case DuckDBTypeId.STRUCT:
      return 1 + Math.max(0, ...type.entryTypes.map(typeDepth));
    default:
      return 0;
  }
}

/**
 * Up to this depth, nested values that to_json cannot render as they are render element by element and
 * field by field: per row that is 2-3x faster than vivace_rows_json's pass over the text, and the few
 * lambdas bind at once.
 */
const SHALLOW = 4;

/**
 * Derived tables, one per level of rows rendered field by field outside any lambda: each takes a row
 * column of the level above apart into its null flag and its fields, and drops it. The final SELECT reads
 * flags and fields by name, so the SQL stays linear in the depth of the rows (an expression repeated per
 * field and level grows quadratically, and macros such as vivace_float_json repeat their argument), and
 * no row column stays alive beside its fields (DuckDB then slows down, and ran out of memory at depth 48).
 */
class Layers {
  private readonly levels: { columns: string[]; dropped: string[] }[] = [];
  private count = 0;

  /** The name of a column of layer `level` (1-based) computing `expr` from the columns of the layer above. */
  bind(expr: string, level: number): string {
    const name = `vivace_s${this.count++}`;
    this.at(level).columns.push(`${expr} AS ${name}`);
    return name;
  }

  /** `name`, a column of the layer above `level`, is not needed past layer `level`. */
  drop(name: string, level: number): void {
    this.at(level).dropped.push(name);
  }

  /** `from` (a derived table) wrapped in the layers. */
  wrap(from: string): string {
    this.levels.forEach(({ columns, dropped }, i) => {
      from = `(SELECT * EXCLUDE (${dropped.join(', ')}), ${columns.join(', ')} FROM ${from}) AS vivace_l${i + 1}`;
    });
    return from;
  }

  private at(level: number) {
    return (this.levels[level - 1] ??= { columns: [], dropped: [] });
  }
}

interface Scope {
  zone: string;
  /** 1-based result column, for the error message. */
  column: number;
  /** Lambdas around the expression being built. */
  lambdas: number;
  /** Lambdas, and rows rendered field by field inside lambdas, around the expression: at most MAX_ELEMENT_NESTING. */
  nesting: number;
  /** Outside lambdas: where rows nested in rows get a column name; `layer` is the layer of the expression's columns. */
  layers?: Layers;
  layer: number;
}

/** One more level of nesting around what is built inside; `lambda`: a lambda (no derived-table columns inside). */
function deeper(scope: Scope, lambda: boolean): Scope {
  if (scope.nesting >= MAX_ELEMENT_NESTING) {
    throw new VivaceError(
      'NOT_SUPPORTED',
      `Result column ${scope.column} nests arrays, maps or rows more than ${MAX_ELEMENT_NESTING} levels deep around maps or values of type real, double, varbinary, time, timestamp or interval`,
    );
  }
  return lambda
    ? { ...scope, lambdas: scope.lambdas + 1, nesting: scope.nesting + 1, layers: undefined }
    : { ...scope, nesting: scope.nesting + 1 };
}

/** `'[' || items joined by ',' || ']'` of a list expression (`array_to_string` is a macro using its list twice). */
function joined(list: string, item: (v: string, inner: Scope) => string, scope: Scope, open: string, close: string): string {
  const v = `vivace_v${scope.lambdas}`;
  return `'${open}' || coalesce(list_aggr(list_transform(${list}, lambda ${v}: ${item(v, deeper(scope, true))}), 'string_agg', ','), '') || '${close}'`;
}

/**
 * SQL expression of VARCHAR type: the Presto JSON of `expr` (of DuckDB type `type`), or NULL when
 * `expr` is NULL.
 */
function jsonOrNull(type: DuckDBType, expr: string, scope: Scope): string {
  // Trino's ipaddress (a struct of its own): its text, which holds no '"' or '\'.
  if (isIpAddressType(type)) return quote(`${IP_ADDRESS_FUNCTIONS.text}(${expr})`);
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
      return `${expr}::VARCHAR`;
    case DuckDBTypeId.HUGEINT:
      return `${expr}::BIGINT::VARCHAR`;
    case DuckDBTypeId.DECIMAL: {
      // Presto decimals are strings in plain notation. DuckDB writes a decimal(p,p) without its leading
      // zero (-.05): one more digit of width gives it back (Trino: -0.05).
      const { width, scale } = type as DuckDBDecimalType;
      if (width === scale && width < 38) return quote(`${expr}::DECIMAL(${width + 1}, ${scale})::VARCHAR`);
      if (width === scale) return quote(`system.main.regexp_replace(${expr}::VARCHAR, '^(-?)[.]', '\\1' || '0.')`);
      return quote(`${expr}::VARCHAR`);
    }
    case DuckDBTypeId.DATE:
      return quote(dateText(expr));
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
    case DuckDBTypeId.UUID:
      // Presto decimals are strings in plain notation; DuckDB's text form is exactly that.
      return quote(`${expr}::VARCHAR`);
    case DuckDBTypeId.FLOAT:
      return `vivace_real_json(${expr})`;
    case DuckDBTypeId.DOUBLE:
      return `vivace_double_json(${expr})`;
    case DuckDBTypeId.BLOB:
      return quote(`base64(${expr})`);
    case DuckDBTypeId.TIME:
      return quote(`strftime(DATE '1970-01-01' + ${expr}, '%H:%M:%S.%f')`);
    case DuckDBTypeId.TIMESTAMP:
      return quote(timestampText(expr, '-%m-%d %H:%M:%S.%f'));
    case DuckDBTypeId.TIMESTAMP_MS:
      return quote(timestampText(expr, '-%m-%d %H:%M:%S.%g'));
    case DuckDBTypeId.TIMESTAMP_S:
      return quote(timestampText(expr, '-%m-%d %H:%M:%S'));
    case DuckDBTypeId.TIMESTAMP_NS:
      return quote(`strftime(${expr}, '%Y-%m-%d %H:%M:%S.%n')`);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return `'"' || strftime(${sessionLocal(expr, scope.zone)}, '%Y-%m-%d %H:%M:%S.%f') || ${sqlString(` ${scope.zone}"`)}`;
    case DuckDBTypeId.INTERVAL:
      return `vivace_interval_json(${expr})`;
    case DuckDBTypeId.TIME_TZ:
      // Inside arrays, maps and rows the type is the engine's, time(6) with time zone.
      return quote(timeWithZoneText(expr, 6));
    case DuckDBTypeId.SQLNULL:
      return `NULL::VARCHAR`;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.STRUCT: {
      const zoned = zonedPrecision(type);
      return zoned === undefined ? nestedJsonOrNull(type, expr, scope) : zonedJson(expr, zoned, zoned);
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.BIT:
    default:
      // json values are sent as a string holding the JSON text, so they are quoted like varchar.
      return `to_json(${expr}::VARCHAR)::VARCHAR`;
  }
}

/** Key types written as their value's JSON string. */
const TEMPORAL_KEYS: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.DATE, DuckDBTypeId.TIME, DuckDBTypeId.TIME_NS, DuckDBTypeId.TIME_TZ, DuckDBTypeId.TIMESTAMP, DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_S, DuckDBTypeId.TIMESTAMP_NS, DuckDBTypeId.TIMESTAMP_TZ,
]);

/** Key types whose VARCHAR cast is not Trino's key text. */
const TEXT_KEYS_DIFFER: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE, DuckDBTypeId.BLOB]);

/**
 * The JSON string of a map key: Trino writes the text of the key's Java value (JsonEncodingUtils.MapEncoder),
 * which is Float.toString or Double.toString for reals and doubles (NaN as "NaN") and base64 for varbinary.
 */
function keyJson(type: DuckDBType, key: string, scope: Scope): string {
  // Temporal keys are JSON strings already; their text is the key's (a zoned timestamp's too, not its STRUCT).
  if (TEMPORAL_KEYS.has(type.typeId) || zonedPrecision(type) !== undefined) return jsonOrNull(type, key, scope);
  switch (type.typeId) {
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return quote(`replace(${type.typeId === DuckDBTypeId.FLOAT ? 'vivace_real_json' : 'vivace_double_json'}(${key}), '"', '')`);
    case DuckDBTypeId.BLOB:
      return quote(`base64(${key})`);
    default:
      return `to_json(${key}::VARCHAR)::VARCHAR`;
  }
}

/** Arrays of arrays (2 or more levels) of one formatted leaf type, or undefined. */
function formattedArrays(type: DuckDBType): { levels: number; leaf: DuckDBType; sql: string } | undefined {
  let levels = 0;
  let leaf = type;
  while (leaf.typeId === DuckDBTypeId.LIST || leaf.typeId === DuckDBTypeId.ARRAY) {
    levels++;
    leaf = leaf.valueType;
  }
  const sql = TEXT_ROUND_TRIP.get(leaf.typeId);
  return levels >= 2 && sql ? { levels, leaf, sql } : undefined;
}

function nestedJsonOrNull(type: DuckDBType, expr: string, scope: Scope): string {
  const plain = jsonCast(type, false);
  if (plain) return `to_json(${expr}${plain.cast ? `::${plain.sql}` : ''})::VARCHAR`;
  const deep = typeDepth(type) > SHALLOW;
  // Rows (in rows and arrays) of to_json-able leaves: one pass over to_json's text.
  const rows = deep ? jsonCast(type, true) : undefined;
  if (rows) return `vivace_rows_json(to_json(${expr}${rows.cast ? `::${rows.sql}` : ''}))`;
  // Arrays of arrays of doubles, timestamps, ...: to_json of their text, each string in it formatted.
  const arrays = deep ? formattedArrays(type) : undefined;
  if (arrays) {
    const inner = deeper(scope, true);
    const [t, i] = [`vivace_v${scope.lambdas}`, `vivace_i${scope.lambdas}`];
    const leaf = jsonOrNull(arrays.leaf, `${t}::${arrays.sql}`, inner);
    const text = `to_json(${expr}::VARCHAR${'[]'.repeat(arrays.levels)})::VARCHAR`;
    return `list_aggr(list_transform(string_split(${text}, '"'), lambda ${t}, ${i}: CASE WHEN ${i} % 2 = 0 THEN ${leaf} ELSE ${t} END), 'string_agg', '')`;
  }
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const list = joined(expr, (v, inner) => jsonOf(type.valueType, v, inner), scope, '[', ']');
      return `CASE WHEN ${expr} IS NULL THEN NULL ELSE ${list} END`;
    }
    case DuckDBTypeId.MAP: {
      // Presto map keys are always strings: the key's text form.
      const entry = (e: string, inner: Scope) => `${keyJson(type.keyType, `${e}.key`, inner)} || ':' || ${jsonOf(type.valueType, `${e}.value`, inner)}`;
      return `CASE WHEN ${expr} IS NULL THEN NULL ELSE ${joined(`map_entries(${expr})`, entry, scope, '{', '}')} END`;
    }
    case DuckDBTypeId.STRUCT: {
      const { layers } = scope;
      const field = (i: number) => `struct_extract_at(${expr}, ${i + 1})`;
      let isNull = `${expr} IS NULL`;
      let fields: string[];
      if (layers && deep) {
        // A row holding rows, arrays or maps: its flag and fields become columns of the next layer.
        const level = scope.layer + 1;
        const next = { ...scope, layer: level };
        fields = type.entryTypes.map((t, i) => jsonOf(t, layers.bind(field(i), level), next));
        isNull = layers.bind(isNull, level);
        layers.drop(expr, level);
      } else {
        const inner = layers ? scope : deeper(scope, false);
        fields = type.entryTypes.map((t, i) => jsonOf(t, field(i), inner));
      }
      const body = fields.length === 0 ? `'[]'` : `'[' || ${fields.join(` || ',' || `)} || ']'`;
      return `CASE WHEN ${isNull} THEN NULL ELSE ${body} END`;
    }
    default:
      throw new Error(`not a nested type: ${type.typeId}`);
  }
}

/** Never NULL: SQL NULL becomes the JSON literal null. */
function jsonOf(type: DuckDBType, expr: string, scope: Scope): string {
  return `COALESCE(${jsonOrNull(type, expr, scope)}, 'null')`;
}

const TIMESTAMPS: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.TIMESTAMP_S, DuckDBTypeId.TIMESTAMP_MS, DuckDBTypeId.TIMESTAMP, DuckDBTypeId.TIMESTAMP_NS]);

/** Whether a column of DuckDB type `type` can be reported and rendered as the Trino type the statement declares. */
export function acceptsDeclared(declared: PrestoType, type: DuckDBType): boolean {
  switch (declared.base) {
    case 'varchar':
    case 'char':
      return type.typeId === DuckDBTypeId.VARCHAR;
    case 'timestamp':
      return TIMESTAMPS.has(type.typeId);
    case 'time':
      return type.typeId === DuckDBTypeId.TIME || type.typeId === DuckDBTypeId.TIME_NS;
    case 'date':
      return type.typeId === DuckDBTypeId.DATE;
    case 'interval year to month':
    case 'interval day to second':
      return type.typeId === DuckDBTypeId.INTERVAL;
    case 'timestamp with time zone':
      return type.typeId === DuckDBTypeId.TIMESTAMP_TZ || zonedPrecision(type) !== undefined;
    case 'unknown':
      return type.typeId === DuckDBTypeId.INTEGER || type.typeId === DuckDBTypeId.SQLNULL;
    case 'time with time zone':
      return type.typeId === DuckDBTypeId.TIME_TZ;
    case 'array':
    case 'map':
    case 'row':
      return acceptsConstructed(declared, type);
    case UNDECLARED.base:
      return true;
    default:
      // Sketches are their serialized bytes, sent in base64 as varbinary is.
      return isSketchType(declared) && type.typeId === DuckDBTypeId.BLOB;
  }
}

/** Whether an array, map or row the statement declares (lib/sql/declared-types.ts) has DuckDB type `type`'s shape. */
function acceptsConstructed(declared: PrestoType, type: DuckDBType): boolean {
  const params = (declared as { params: PrestoType[] }).params;
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return declared.base === 'array' && acceptsDeclared(params[0]!, type.valueType);
    case DuckDBTypeId.MAP:
      return declared.base === 'map' && acceptsDeclared(params[0]!, type.keyType) && acceptsDeclared(params[1]!, type.valueType);
    case DuckDBTypeId.STRUCT:
      if (declared.base !== 'row' || isIpAddressType(type) || zonedPrecision(type) !== undefined || type.entryTypes.length !== params.length) return false;
      return type.entryTypes.every((t, i) => acceptsDeclared(params[i]!, t));
    default:
      return false;
  }
}

/** Whether a declared type holds char(n) inside an array or map: its values are padded before rendering. */
const holdsChar = (t: PrestoType): boolean => t.base === 'char' || ((t.base === 'array' || t.base === 'map') && (t as { params: PrestoType[] }).params.some(holdsChar));

/**
 * `expr` with the char(n) values inside its arrays and maps padded with spaces to n, as Trino renders them
 * (a char value is kept without its trailing spaces: duckdb-printer.ts). Rows are left as they are.
 */
function paddedChars(declared: PrestoType, expr: string, depth = 0): string {
  if (!holdsChar(declared)) return expr;
  const [key, value] = (declared as { params?: PrestoType[] }).params ?? [];
  const v = `vivace_pad${depth}`;
  switch (declared.base) {
    case 'char':
      return `system.main.rpad(${expr}, ${Math.min((declared as { length?: number }).length ?? 1, 65_536)}, ' ')`;
    case 'array':
      return `list_transform(${expr}, lambda ${v}: ${paddedChars(key!, v, depth + 1)})`;
    default:
      return `map_from_entries(list_transform(map_entries(${expr}), lambda ${v}: struct_pack(key := ${paddedChars(key!, `${v}.key`, depth + 1)}, value := ${paddedChars(value!, `${v}.value`, depth + 1)})))`;
  }
}

/** `text` without its last `drop` characters (fraction digits a declared precision does not show). */
const dropLast = (text: string, drop: number) => (drop <= 0 ? text : `system.main.left(${text}, -${drop})`);

/**
 * The Presto JSON of a top-level column whose Trino type the statement declares beyond DuckDB's type
 * (lib/sql/declared-types.ts), or undefined to render by DuckDB's type: time(p) and timestamp(p) with p
 * digits, char(n) padded to n, interval year to month as `Y-M`.
 */
function declaredJson(said: DeclaredOutput, type: DuckDBType, expr: string, sessionZone: string): string | undefined {
  const declared = said.type;
  if (!declared || !acceptsDeclared(declared, type)) return undefined;
  const f = declared as { precision?: number; length?: number };
  switch (declared.base) {
    case 'timestamp with time zone': {
      // Trino renders the value in its own zone, named after it: `2020-01-02 03:04:05.000 America/New_York`.
      const zoned = zonedPrecision(type);
      if (zoned !== undefined) return `COALESCE(${zonedJson(expr, zoned, f.precision ?? 3)}, 'null')`;
      // DuckDB's own TIMESTAMPTZ (system tables): in the session's zone.
      const p = Math.min(f.precision ?? 3, 6);
      const text = dropLast(`strftime(${sessionLocal(expr, sessionZone)}, '%Y-%m-%d %H:%M:%S.%f')`, p === 0 ? 7 : 6 - p);
      return `COALESCE('"' || ${text} || ${sqlString(` ${sessionZone}"`)}, 'null')`;
    }
    case 'timestamp': {
      const nanos = type.typeId === DuckDBTypeId.TIMESTAMP_NS;
      const digits = nanos ? 9 : 6;
      const precision = f.precision ?? 3;
      const p = Math.min(precision, digits);
      const text = nanos ? `strftime(${expr}, '%Y-%m-%d %H:%M:%S.%n')` : timestampText(`${expr}::TIMESTAMP`, '-%m-%d %H:%M:%S.%f');
      // Digits past what DuckDB holds are zeros (a timestamp(12) column holds nanoseconds).
      const zeros = precision > digits ? ` || '${'0'.repeat(precision - digits)}'` : '';
      return `COALESCE(${quote(dropLast(text, p === 0 ? digits + 1 : digits - p) + zeros)}, 'null')`;
    }
    case 'time': {
      if (type.typeId === DuckDBTypeId.TIME_NS) return `COALESCE(${quote(exactFraction(`(${expr}::VARCHAR)`, 9, f.precision ?? 3))}, 'null')`;
      const precision = f.precision ?? 3;
      const p = Math.min(precision, 6);
      const text = `strftime(DATE '1970-01-01' + ${expr}, '%H:%M:%S.%f')`;
      const zeros = precision > 6 ? ` || '${'0'.repeat(precision - 6)}'` : '';
      return `COALESCE(${quote(dropLast(text, p === 0 ? 7 : 6 - p) + zeros)}, 'null')`;
    }
    case 'date':
      return `COALESCE(${quote(dateText(expr))}, 'null')`;
    case 'char':
      // Trino pads char(n) values with spaces to n; DuckDB keeps the text as cast. n is at most 65,536.
      return `COALESCE(to_json(system.main.rpad(${expr}, ${Math.min(f.length ?? 1, 65_536)}, ' '))::VARCHAR, 'null')`;
    case 'interval year to month':
      return `COALESCE(vivace_year_month_json(${expr}), 'null')`;
    case 'unknown':
      return `'null'`;
    case 'time with time zone':
      return `COALESCE(${quote(timeWithZoneText(expr, f.precision ?? 3))}, 'null')`;
    default:
      return undefined;
  }
}

/** A literal's value as the statement declares Trino renders it (exact beyond DuckDB's digits and years), as a constant. */
const exactJson = (said: DeclaredOutput | undefined) => (said?.text === undefined ? undefined : sqlString(JSON.stringify(said.text)));

/** What ends every rendered row (renderRowsSql): the comma between a page's rows. */
export const ROW_SEPARATOR = ',';

/**
 * SQL yielding one BLOB column: each row of `innerSql` as a Presto JSON array followed by ROW_SEPARATOR. Throws NOT_SUPPORTED
 * for a column nesting arrays or maps more than MAX_ELEMENT_NESTING deep around values formatted one by one.
 * `declared`: per column, what the statement declares beyond DuckDB's type (a Trino type, a zone to render in).
 */
export function renderRowsSql(innerSql: string, types: readonly DuckDBType[], timeZone?: string, declared: readonly DeclaredOutput[] = []): string {
  const zone = safeZone(timeZone);
  const names = types.map((_, i) => `"c${i}"`);
  const layers = new Layers();
  types.forEach((t, i) => {
    const depth = typeDepth(t);
    if (depth > MAX_TYPE_DEPTH) {
      throw new VivaceError('NOT_SUPPORTED', `Result column ${i + 1} nests arrays, maps or rows ${depth} levels deep: at most ${MAX_TYPE_DEPTH} are supported`);
    }
  });
  const values = types.map((t, i) => {
    const said = declared[i] ?? {};
    const value = said.type && (said.type.base === 'array' || said.type.base === 'map') && acceptsDeclared(said.type, t) ? paddedChars(said.type, names[i]!) : names[i]!;
    return exactJson(said) ?? declaredJson(said, t, names[i]!, zone) ?? jsonOf(t, value, { zone, column: i + 1, lambdas: 0, nesting: 0, layers, layer: 0 });
  });
  // One concat() over all parts: a chain of || builds an intermediate string per column (measured 1.5x slower).
  // Each row ends with the comma that separates it from the next (ROW_SEPARATOR): rows lying back to back
  // in a chunk are then already a page's bytes, copied in one piece (StreamingExecution drops the last comma).
  const row = values.length === 0 ? `'[],'` : `concat('[', ${values.join(`, ',', `)}, '],')`;
  // Positional renaming: result columns may have duplicate or awkward names.
  const from = layers.wrap(`(\n${innerSql}\n) AS vivace_q(${names.join(', ')})`);
  // BLOB, so JavaScript copies bytes into a page and decodes UTF-8 once per batch instead of once per row.
  return `SELECT encode(${row}) AS vivace_row FROM ${from}`;
}

// Builds the SQL that makes DuckDB render each result row as Presto JSON text (protocol.md section 9),
// so JavaScript only copies bytes. Measured (bench/engine-render.bench.ts, 5M rows x 16 lineitem-like
// columns, 2 cores, quiet machine): raw fetch 5.0M rows/s; DuckDB plain json_array 870k rows/s;
// this renderer ~900k rows/s inside DuckDB and 660-730k rows/s (~105-115 MB/s) through StreamingExecution.
// What mattered: one concat() per row instead of a chain of || (x1.5), BLOB rows copied into a page and
// decoded once per batch instead of a JS string per row (x1.25), streaming_buffer_size 4MB (x1.1).
// Per-row getItem()+join capped at ~470-560k rows/s. Under CPU contention all figures drop ~2-3x.
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';

const quote = (e: string) => `'"' || ${e} || '"'`;
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A zone id that is safe inside SQL and JSON strings; anything odd falls back to UTC. */
export function safeZone(zone: string | undefined): string {
  return zone && /^[A-Za-z0-9_/+\-:]{1,64}$/.test(zone) ? zone : 'UTC';
}

/**
 * SQL expression of VARCHAR type: the Presto JSON of `expr` (of DuckDB type `type`), or NULL when
 * `expr` is NULL. `depth` keeps lambda parameter names unique in nested lists/maps.
 */
function jsonOrNull(type: DuckDBType, expr: string, zone: string, depth: number): string {
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
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
    case DuckDBTypeId.DECIMAL:
    case DuckDBTypeId.DATE:
    case DuckDBTypeId.UUID:
      // Presto decimals are strings in plain notation; DuckDB's text form is exactly that.
      return quote(`${expr}::VARCHAR`);
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return `vivace_float_json(${expr})`;
    case DuckDBTypeId.BLOB:
      return quote(`base64(${expr})`);
    case DuckDBTypeId.TIME:
      return quote(`strftime(DATE '1970-01-01' + ${expr}, '%H:%M:%S.%f')`);
    case DuckDBTypeId.TIMESTAMP:
      return quote(`strftime(${expr}, '%Y-%m-%d %H:%M:%S.%f')`);
    case DuckDBTypeId.TIMESTAMP_MS:
      return quote(`strftime(${expr}, '%Y-%m-%d %H:%M:%S.%g')`);
    case DuckDBTypeId.TIMESTAMP_S:
      return quote(`strftime(${expr}, '%Y-%m-%d %H:%M:%S')`);
    case DuckDBTypeId.TIMESTAMP_NS:
      return quote(`strftime(${expr}, '%Y-%m-%d %H:%M:%S.%n')`);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return `'"' || strftime(timezone(${sqlString(zone)}, ${expr}), '%Y-%m-%d %H:%M:%S.%f') || ${sqlString(` ${zone}"`)}`;
    case DuckDBTypeId.INTERVAL:
      return `vivace_interval_json(${expr})`;
    case DuckDBTypeId.SQLNULL:
      return `NULL::VARCHAR`;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const v = `vivace_v${depth}`;
      const item = jsonOf(type.valueType, v, zone, depth + 1);
      return `'[' || array_to_string(list_transform(${expr}, lambda ${v}: ${item}), ',') || ']'`;
    }
    case DuckDBTypeId.MAP: {
      const e = `vivace_e${depth}`;
      // Presto map keys are always strings: the key's text form.
      const key = `to_json(${e}.key::VARCHAR)::VARCHAR`;
      const value = jsonOf(type.valueType, `${e}.value`, zone, depth + 1);
      return `'{' || array_to_string(list_transform(map_entries(${expr}), lambda ${e}: ${key} || ':' || ${value}), ',') || '}'`;
    }
    case DuckDBTypeId.STRUCT: {
      const fields = type.entryTypes.map((t, i) => jsonOf(t, `struct_extract_at(${expr}, ${i + 1})`, zone, depth + 1));
      const body = fields.length === 0 ? `'[]'` : `'[' || ${fields.join(` || ',' || `)} || ']'`;
      return `CASE WHEN ${expr} IS NULL THEN NULL ELSE ${body} END`;
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.BIT:
    default:
      // json values are sent as a string holding the JSON text, so they are quoted like varchar.
      return `to_json(${expr}::VARCHAR)::VARCHAR`;
  }
}

/** Never NULL: SQL NULL becomes the JSON literal null. */
function jsonOf(type: DuckDBType, expr: string, zone: string, depth: number): string {
  return `COALESCE(${jsonOrNull(type, expr, zone, depth)}, 'null')`;
}

/** SQL yielding one VARCHAR column: each row of `innerSql` as a Presto JSON array. */
export function renderRowsSql(innerSql: string, types: readonly DuckDBType[], timeZone?: string): string {
  const zone = safeZone(timeZone);
  const names = types.map((_, i) => `"c${i}"`);
  const values = types.map((t, i) => jsonOf(t, names[i]!, zone, 0));
  // One concat() over all parts: a chain of || builds an intermediate string per column (measured 1.5x slower).
  const row = values.length === 0 ? `'[]'` : `concat('[', ${values.join(`, ',', `)}, ']')`;
  // BLOB, so JavaScript copies bytes into a page and decodes UTF-8 once per batch instead of once per row.
  // Positional renaming: result columns may have duplicate or awkward names.
  return `SELECT encode(${row}) AS vivace_row FROM (\n${innerSql}\n) AS vivace_q(${names.join(', ')})`;
}

// Trino's types as DuckDB spells them, for casts, literals and column definitions. The gate admits only
// the type names mapped here (statement-gate.ts TYPE_NAMES); ROW, TIMESTAMP, TIME and INTERVAL are trees
// of their own.
import type { DataType, NumericParameter } from './ast.js';
import { fold } from './names.js';
import { duckdbTimestamp } from './temporal-literals.js';
import { zonedType } from './zoned-timestamps.js';
import { IPADDRESS_DUCKDB_TYPE } from './ip-address.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { isSketchName, sketchType } from './sketch-types.js';

const SIMPLE: Readonly<Record<string, string>> = {
  boolean: 'BOOLEAN',
  tinyint: 'TINYINT',
  smallint: 'SMALLINT',
  integer: 'INTEGER',
  int: 'INTEGER',
  bigint: 'BIGINT',
  real: 'FLOAT',
  double: 'DOUBLE',
  varchar: 'VARCHAR',
  // char(n) is padded in Trino; DuckDB has no such type (issue 8 carries the padding).
  char: 'VARCHAR',
  varbinary: 'BLOB',
  json: 'JSON',
  date: 'DATE',
  uuid: 'UUID',
  time: 'TIME',
  timestamp: 'TIMESTAMP_MS',
  ipaddress: IPADDRESS_DUCKDB_TYPE,
};

/** The value of a type's numeric parameter (varchar(3), decimal(10, 2)), or undefined. */
export const numeric = (p: DataType | NumericParameter | undefined): number | undefined =>
  p?.type === 'NumericParameter' ? Number(p.value) : undefined;

function parameterType(p: DataType | NumericParameter | undefined, name: string): string {
  if (!p || p.type === 'NumericParameter') throw new VivaceError('TYPE_NOT_FOUND', `Unknown type: ${name}`);
  return duckdbType(p);
}

/** Quotes a struct field name for DuckDB. */
const field = (name: string) => `"${name.split('"').join('""')}"`;

/** Between a repeated row field name and its occurrence number in DuckDB (a private-use character). */
const REPEAT_MARK = '\uE010';

/** Whether a row type names a field twice (as Trino folds names): its DuckDB struct then carries suffixes. */
export function hasRepeatedFieldNames(t: DataType): boolean {
  if (t.type !== 'RowDataType') return false;
  const names = t.fields.flatMap((f) => (f.name ? [fold(f.name.value)] : []));
  return new Set(names).size < names.length;
}

/** DuckDB SQL for JSON text `json` made from such rows, the suffixes taken out of its object keys (Trino repeats the key). */
export function withoutRepeatMarks(json: string): string {
  return `CAST(system.main.regexp_replace(CAST(${json} AS VARCHAR), '${REPEAT_MARK}[0-9]+":', '":', 'g') AS JSON)`;
}

/** The Trino name of a DuckDB struct field: the name as declared, without the suffix a repeated name got. */
export function declaredFieldName(duckdbName: string): string {
  const at = duckdbName.indexOf(REPEAT_MARK);
  return at < 0 ? duckdbName : duckdbName.slice(0, at);
}

/** The DuckDB type for a Trino type tree. */
export function duckdbType(t: DataType): string {
  switch (t.type) {
    case 'GenericDataType': {
      const name = fold(t.name.value);
      const args = t.arguments;
      if (name === 'array') return `${parameterType(args[0], name)}[]`;
      if (name === 'map') return `MAP(${parameterType(args[0], name)}, ${parameterType(args[1], name)})`;
      if (name === 'decimal') {
        // Trino: DECIMAL is decimal(38,0), decimal(p) is decimal(p,0).
        const precision = numeric(args[0]) ?? 38;
        const scale = numeric(args[1]) ?? 0;
        return `DECIMAL(${precision}, ${scale})`;
      }
      // A sketch is its serialized bytes (sketch-types.ts).
      if (isSketchName(name)) {
        if (!sketchType(t)) throw new VivaceError('TYPE_NOT_FOUND', `Unknown type: ${name}`);
        return 'BLOB';
      }
      const simple = Object.hasOwn(SIMPLE, name) ? SIMPLE[name] : undefined;
      if (simple === undefined) throw new VivaceError('TYPE_NOT_FOUND', `Unknown type: ${name}`);
      return simple;
    }
    case 'RowDataType': {
      // DuckDB's structs need field names; Trino's anonymous fields are numbered as DuckDB's ROW() does.
      // Trino allows a name twice (row(a integer, a integer)), DuckDB does not: a repeat gets a suffix
      // that the type reported back leaves out (declaredFieldName). As Trino, a name is lower case unless quoted.
      const seen = new Map<string, number>();
      return `STRUCT(${t.fields.map((f, i) => {
        const name = f.name ? (f.name.quoted ? f.name.value : fold(f.name.value)) : `field${i}`;
        const count = (seen.get(fold(name)) ?? 0) + 1;
        seen.set(fold(name), count);
        return `${field(count === 1 ? name : `${name}${REPEAT_MARK}${count}`)} ${duckdbType(f.fieldType)}`;
      }).join(', ')})`;
    }
    case 'DateTimeDataType': {
      const precision = numeric(t.precision);
      if (t.kind === 'TIME') return t.withTimeZone ? 'TIMETZ' : (precision ?? 3) > 6 ? 'TIME_NS' : 'TIME';
      // A timestamp with time zone carries its zone in each value (zoned-timestamps.ts).
      if (t.withTimeZone) return zonedType(precision ?? 3);
      // Trino: TIMESTAMP is timestamp(3). DuckDB keeps 0, 3, 6 or 9 digits; declared-types.ts reports p.
      return duckdbTimestamp(precision ?? 3);
    }
    case 'IntervalDataType':
      return 'INTERVAL';
  }
}

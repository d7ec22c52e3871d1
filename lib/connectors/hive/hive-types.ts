// Column types between Trino and the Hive metastore: a Trino type (from DDL or a query's output) as the
// Hive type string the file metastore keeps (`int`, `string`, `varchar(10)`, `array<int>`, `struct<a:int>`),
// and a Hive type back as the Trino type users see and the DuckDB type files are read as (HiveTypeTranslator).
import type { DataType } from '../../sql/ast.js';
import { numeric } from '../../sql/duckdb-type-names.js';
import { fold } from '../../sql/names.js';
import type { PrestoType } from '../../protocol/types.js';
import { formatType } from '../../protocol/presto-type.js';
import { VivaceError } from '../../protocol/vivace-error.js';

const unsupported = (t: PrestoType) => new VivaceError('NOT_SUPPORTED', `Unsupported Hive type: ${formatType(t)}`);

/** The Trino type a DDL type tree names (only the types a Hive table can hold; others NOT_SUPPORTED). */
export function prestoTypeOfDataType(t: DataType): PrestoType {
  switch (t.type) {
    case 'GenericDataType': {
      const name = fold(t.name.value);
      const args = t.arguments;
      const param = (i: number): PrestoType => {
        const p = args[i];
        if (!p || p.type === 'NumericParameter') throw new VivaceError('TYPE_NOT_FOUND', `Unknown type: ${name}`);
        return prestoTypeOfDataType(p);
      };
      if (name === 'array') return { base: 'array', params: [param(0)] };
      if (name === 'map') return { base: 'map', params: [param(0), param(1)] };
      if (name === 'decimal') return { base: 'decimal', precision: numeric(args[0]) ?? 38, scale: numeric(args[1]) ?? 0 };
      if (name === 'varchar') {
        const length = numeric(args[0]);
        return length === undefined ? { base: 'varchar' } : { base: 'varchar', length };
      }
      if (name === 'char') return { base: 'char', length: numeric(args[0]) ?? 1 };
      if (name === 'int') return { base: 'integer' };
      return { base: name };
    }
    case 'RowDataType':
      return { base: 'row', params: t.fields.map((f) => prestoTypeOfDataType(f.fieldType)), fieldNames: t.fields.map((f) => (f.name ? fold(f.name.value) : undefined)) };
    case 'DateTimeDataType':
      if (t.kind === 'TIME' || t.withTimeZone) throw unsupported({ base: t.kind === 'TIME' ? 'time' : 'timestamp with time zone', precision: numeric(t.precision) ?? 3 });
      return { base: 'timestamp', precision: numeric(t.precision) ?? 3 };
    case 'IntervalDataType':
      throw unsupported({ base: t.from === 'YEAR' || t.from === 'MONTH' ? 'interval year to month' : 'interval day to second' });
  }
}

const SIMPLE_TO_HIVE: Readonly<Record<string, string>> = {
  boolean: 'boolean', tinyint: 'tinyint', smallint: 'smallint', integer: 'int', bigint: 'bigint', real: 'float', double: 'double',
  date: 'date', varbinary: 'binary',
};

/** The Hive type string of a Trino type; NOT_SUPPORTED `Unsupported Hive type: ...` as Trino for the rest. */
export function hiveTypeOf(t: PrestoType): string {
  switch (t.base) {
    case 'varchar':
      return 'length' in t && t.length !== undefined && t.length < 2_147_483_647 ? `varchar(${t.length})` : 'string';
    case 'char':
      return `char(${'length' in t ? t.length ?? 1 : 1})`;
    case 'decimal':
      return 'precision' in t ? `decimal(${t.precision},${t.scale})` : 'decimal(38,0)';
    case 'timestamp':
      return 'timestamp';
    case 'array':
      return `array<${hiveTypeOf(t.params![0])}>`;
    case 'map':
      return `map<${hiveTypeOf(t.params![0])},${hiveTypeOf(t.params![1])}>`;
    case 'row': {
      const names = 'fieldNames' in t ? t.fieldNames : [];
      return `struct<${t.params!.map((p, i) => `${names[i] ?? `field${i}`}:${hiveTypeOf(p)}`).join(',')}>`;
    }
    default: {
      const simple = Object.hasOwn(SIMPLE_TO_HIVE, t.base) ? SIMPLE_TO_HIVE[t.base] : undefined;
      if (simple === undefined) throw unsupported(t);
      return simple;
    }
  }
}

/** A parsed Hive type. */
export interface HiveType {
  name: string;
  /** Numeric parameters: varchar(10), decimal(10,2). */
  numbers: number[];
  /** array<T>: [T]; map<K,V>: [K, V]; struct: field types. */
  children: HiveType[];
  /** struct field names. */
  fields: string[];
}

/** Reads a Hive type string (as the metastore keeps it); INVALID metadata is HIVE_INVALID_METADATA. */
export function parseHiveType(text: string): HiveType {
  let at = 0;
  const bad = () => new VivaceError('HIVE_INVALID_METADATA', `Unsupported Hive type in metadata: ${text}`);
  const word = (): string => {
    const start = at;
    while (at < text.length && !'<>(),:'.includes(text[at]!)) at++;
    return text.slice(start, at).trim();
  };
  const expect = (c: string) => {
    if (text[at] !== c) throw bad();
    at++;
  };
  const type = (): HiveType => {
    const name = word().toLowerCase();
    const out: HiveType = { name, numbers: [], children: [], fields: [] };
    if (text[at] === '(') {
      at++;
      for (;;) {
        const n = Number(word());
        if (!Number.isInteger(n)) throw bad();
        out.numbers.push(n);
        if (text[at] === ',') at++;
        else break;
      }
      expect(')');
    } else if (text[at] === '<') {
      at++;
      for (;;) {
        if (name === 'struct') {
          out.fields.push(word());
          expect(':');
        }
        out.children.push(type());
        if (text[at] === ',') at++;
        else break;
      }
      expect('>');
    }
    return out;
  };
  const parsed = type();
  if (at !== text.length) throw bad();
  return parsed;
}

const SIMPLE_FROM_HIVE: Readonly<Record<string, [PrestoType, string]>> = {
  boolean: [{ base: 'boolean' }, 'BOOLEAN'],
  tinyint: [{ base: 'tinyint' }, 'TINYINT'],
  smallint: [{ base: 'smallint' }, 'SMALLINT'],
  int: [{ base: 'integer' }, 'INTEGER'],
  bigint: [{ base: 'bigint' }, 'BIGINT'],
  float: [{ base: 'real' }, 'FLOAT'],
  double: [{ base: 'double' }, 'DOUBLE'],
  date: [{ base: 'date' }, 'DATE'],
  binary: [{ base: 'varbinary' }, 'BLOB'],
  string: [{ base: 'varchar' }, 'VARCHAR'],
  // Trino's Hive timestamps are timestamp(3) (hive.timestamp-precision=MILLISECONDS).
  timestamp: [{ base: 'timestamp', precision: 3 }, 'TIMESTAMP_MS'],
};

/** The Trino type users see for a Hive type. */
export function prestoTypeOfHive(h: HiveType): PrestoType {
  switch (h.name) {
    case 'varchar':
      return { base: 'varchar', length: h.numbers[0] ?? 65535 };
    case 'char':
      return { base: 'char', length: h.numbers[0] ?? 1 };
    case 'decimal':
      return { base: 'decimal', precision: h.numbers[0] ?? 10, scale: h.numbers[1] ?? 0 };
    case 'array':
      return { base: 'array', params: [prestoTypeOfHive(h.children[0]!)] };
    case 'map':
      return { base: 'map', params: [prestoTypeOfHive(h.children[0]!), prestoTypeOfHive(h.children[1]!)] };
    case 'struct':
      return { base: 'row', params: h.children.map(prestoTypeOfHive), fieldNames: [...h.fields] };
    default: {
      const simple = Object.hasOwn(SIMPLE_FROM_HIVE, h.name) ? SIMPLE_FROM_HIVE[h.name] : undefined;
      if (!simple) throw new VivaceError('HIVE_INVALID_METADATA', `Unsupported Hive type in metadata: ${h.name}`);
      return simple[0];
    }
  }
}

const quoteField = (name: string) => `"${name.split('"').join('""')}"`;

/** The DuckDB type a Hive column is read as. */
export function duckdbTypeOfHive(h: HiveType): string {
  switch (h.name) {
    case 'varchar':
    case 'char':
      return 'VARCHAR';
    case 'decimal':
      return `DECIMAL(${h.numbers[0] ?? 10}, ${h.numbers[1] ?? 0})`;
    case 'array':
      return `${duckdbTypeOfHive(h.children[0]!)}[]`;
    case 'map':
      return `MAP(${duckdbTypeOfHive(h.children[0]!)}, ${duckdbTypeOfHive(h.children[1]!)})`;
    case 'struct':
      return `STRUCT(${h.children.map((c, i) => `${quoteField(h.fields[i]!)} ${duckdbTypeOfHive(c)}`).join(', ')})`;
    default: {
      const simple = Object.hasOwn(SIMPLE_FROM_HIVE, h.name) ? SIMPLE_FROM_HIVE[h.name] : undefined;
      if (!simple) throw new VivaceError('HIVE_INVALID_METADATA', `Unsupported Hive type in metadata: ${h.name}`);
      return simple[1];
    }
  }
}

/** Whether DuckDB's type for a Hive type loses what Trino declares (varchar(n), char(n), timestamp(3)): listings need the declared one. */
export function isLossy(h: HiveType): boolean {
  return h.name === 'varchar' || h.name === 'char' || h.name === 'timestamp' || h.children.some(isLossy);
}

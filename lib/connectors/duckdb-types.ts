// Maps DuckDB result types (as @duckdb/node-api reports them) to Presto types.
// Only produces PrestoType values; rendering type names is lib/protocol's job. Here, beside the connectors,
// because a connector reads types from files (the hive connector's Parquet footers) as the engine reads
// them from results: connectors must not import the engine, and the engine uses these from here.
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import type { PrestoType } from '../protocol/types.js';
import { zonedPrecision } from './zoned-type.js';
import { IPADDRESS_FIELD } from '../sql/ip-address.js';
import { declaredFieldName } from '../sql/duckdb-type-names.js';
import { UNDECLARED } from '../sql/declared-types.js';

/** Whether a DuckDB type is Trino's ipaddress (a struct of exactly its one field, a UHUGEINT: lib/sql/ip-address.ts). */
export function isIpAddressType(type: DuckDBType): boolean {
  return type.typeId === DuckDBTypeId.STRUCT && type.entryNames.length === 1 && type.entryNames[0] === IPADDRESS_FIELD
    && type.entryTypes[0]!.typeId === DuckDBTypeId.UHUGEINT;
}

const simple = (base: string): PrestoType => ({ base });
const decimal = (precision: number, scale: number): PrestoType => ({ base: 'decimal', precision, scale });

/** The Presto type a DuckDB column is reported as. Unknown DuckDB types become varchar (rendered as text). */
export function prestoTypeOf(type: DuckDBType): PrestoType {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return simple('boolean');
    case DuckDBTypeId.TINYINT:
      return simple('tinyint');
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.UTINYINT:
      return simple('smallint');
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.USMALLINT:
      return simple('integer');
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UINTEGER:
      return simple('bigint');
    case DuckDBTypeId.UBIGINT:
      return decimal(20, 0);
    // DuckDB types sum(integer) and sum(bigint) HUGEINT; Presto answers bigint (row-renderer.ts narrows
    // the value, failing beyond bigint's range).
    case DuckDBTypeId.HUGEINT:
      return simple('bigint');
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return decimal(38, 0);
    case DuckDBTypeId.FLOAT:
      return simple('real');
    case DuckDBTypeId.DOUBLE:
      return simple('double');
    case DuckDBTypeId.DECIMAL:
      return decimal(type.width, type.scale);
    case DuckDBTypeId.VARCHAR:
      return type.alias?.toUpperCase() === 'JSON' ? simple('json') : { base: 'varchar' };
    case DuckDBTypeId.BLOB:
      return { base: 'varbinary' };
    case DuckDBTypeId.DATE:
      return simple('date');
    case DuckDBTypeId.TIME:
      return { base: 'time', precision: 6 };
    case DuckDBTypeId.TIME_NS:
      return { base: 'time', precision: 9 };
    case DuckDBTypeId.TIME_TZ:
      return { base: 'time with time zone', precision: 6 };
    case DuckDBTypeId.TIMESTAMP:
      return { base: 'timestamp', precision: 6 };
    case DuckDBTypeId.TIMESTAMP_MS:
      return { base: 'timestamp', precision: 3 };
    case DuckDBTypeId.TIMESTAMP_S:
      return { base: 'timestamp', precision: 0 };
    case DuckDBTypeId.TIMESTAMP_NS:
      return { base: 'timestamp', precision: 9 };
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { base: 'timestamp with time zone', precision: 6 };
    case DuckDBTypeId.INTERVAL:
      return simple('interval day to second');
    case DuckDBTypeId.UUID:
      return simple('uuid');
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return { base: 'array', params: [prestoTypeOf(type.valueType)] };
    case DuckDBTypeId.MAP:
      return { base: 'map', params: [prestoTypeOf(type.keyType), prestoTypeOf(type.valueType)] };
    case DuckDBTypeId.STRUCT:
      // Trino's ipaddress is a struct of its own (lib/sql/ip-address.ts).
      if (isIpAddressType(type)) return simple('ipaddress');
      // The project's zoned values (lib/sql/zoned-timestamps.ts) are Trino's timestamp with time zone.
      if (zonedPrecision(type) !== undefined) return { base: 'timestamp with time zone', precision: zonedPrecision(type)! };
      return {
        base: 'row',
        params: type.entryTypes.map(prestoTypeOf),
        // DuckDB names the fields of an unnamed ROW(...) with '' ; Presto leaves them anonymous. A repeated
        // name (row(a integer, a integer)) is reported as declared.
        fieldNames: type.entryNames.map((n) => (n === '' ? undefined : declaredFieldName(n))),
      };
    case DuckDBTypeId.SQLNULL:
      return simple('unknown');
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.BIT:
    default:
      return { base: 'varchar' };
  }
}

/**
 * The type reported for a column whose statement declares `declared` (lib/sql/declared-types.ts) and whose
 * DuckDB type is `type` (row-renderer.ts acceptsDeclared said they agree): the declared type with its
 * UNDECLARED parts, and a row's field names, as DuckDB's type tells them.
 */
export function filledType(declared: PrestoType, type: DuckDBType): PrestoType {
  if (declared === UNDECLARED) return prestoTypeOf(type);
  const params = (declared as { params?: PrestoType[] }).params;
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return params ? { base: 'array', params: [filledType(params[0]!, type.valueType)] } : declared;
    case DuckDBTypeId.MAP:
      return params ? { base: 'map', params: [filledType(params[0]!, type.keyType), filledType(params[1]!, type.valueType)] } : declared;
    case DuckDBTypeId.STRUCT: {
      const own = prestoTypeOf(type) as { fieldNames?: (string | undefined)[] };
      if (!params || !own.fieldNames) return declared;
      return { base: 'row', fieldNames: own.fieldNames, params: type.entryTypes.map((t, i) => filledType(params[i]!, t)) };
    }
    default:
      return declared;
  }
}

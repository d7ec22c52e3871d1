// Whether a DuckDB result type is a zoned value (lib/sql/zoned-timestamps.ts): the STRUCT of a UTC wall
// time and a zone that stands for Trino's timestamp with time zone. Its precision is the time's.
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { ZONED_UTC, ZONED_ZONE } from '../sql/zoned-timestamps.js';

const PRECISIONS: ReadonlyMap<DuckDBTypeId, number> = new Map([
  [DuckDBTypeId.TIMESTAMP_S, 0], [DuckDBTypeId.TIMESTAMP_MS, 3], [DuckDBTypeId.TIMESTAMP, 6], [DuckDBTypeId.TIMESTAMP_NS, 9],
]);

/** The precision of a zoned value's type (0, 3, 6 or 9), or undefined for any other type. */
export function zonedPrecision(type: DuckDBType): number | undefined {
  if (type.typeId !== DuckDBTypeId.STRUCT || type.entryNames.length !== 2) return undefined;
  if (type.entryNames[0] !== ZONED_UTC || type.entryNames[1] !== ZONED_ZONE || type.entryTypes[1]!.typeId !== DuckDBTypeId.VARCHAR) return undefined;
  return PRECISIONS.get(type.entryTypes[0]!.typeId);
}

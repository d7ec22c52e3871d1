// The Trino types DDL declares for table columns where DuckDB's column type loses them (varchar(n),
// char(n), time(p), timestamp(p), timestamp(p) with time zone, interval year to month), as changes to a
// registry the engine keeps (lib/engine/catalogs/declared-columns.ts). Pure: read off the tree.
import type { DataType, QualifiedName, Statement } from './ast.js';
import { numeric } from './duckdb-type-names.js';
import type { PrestoType } from '../protocol/types.js';
import { fold, partsOf, qualifyTable, type QualifiedTable } from './names.js';
import { formatSql } from './sql-formatter.js';
import { sketchType } from './sketch-types.js';

export type ColumnChange =
  /** The table now has exactly these declared columns (CREATE TABLE; none for CREATE TABLE AS, views); a view its Trino query. */
  | { kind: 'define'; table: QualifiedTable; columns: [string, PrestoType][]; viewSql?: string }
  | { kind: 'drop'; table: QualifiedTable }
  | { kind: 'dropSchema'; catalog: string; schema: string }
  | { kind: 'rename'; table: QualifiedTable; to: QualifiedTable }
  | { kind: 'addColumn'; table: QualifiedTable; column: string; type: PrestoType }
  | { kind: 'dropColumn'; table: QualifiedTable; column: string }
  | { kind: 'renameColumn'; table: QualifiedTable; column: string; to: string };

/** The Trino type of a column definition when DuckDB's column type would not say it; undefined otherwise. */
export function lossyColumnType(t: DataType): PrestoType | undefined {
  switch (t.type) {
    case 'GenericDataType': {
      const name = fold(t.name.value);
      const length = numeric(t.arguments[0]);
      if (name === 'varchar' && length !== undefined) return { base: 'varchar', length };
      if (name === 'char') return { base: 'char', length: length ?? 1 };
      // A sketch is a BLOB to DuckDB.
      return sketchType(t);
    }
    case 'DateTimeDataType': {
      const precision = numeric(t.precision) ?? 3;
      if (t.kind === 'TIME') return { base: t.withTimeZone ? 'time with time zone' : 'time', precision };
      return { base: t.withTimeZone ? 'timestamp with time zone' : 'timestamp', precision };
    }
    case 'IntervalDataType':
      return t.from === 'YEAR' || t.from === 'MONTH' ? { base: 'interval year to month' } : undefined;
    default:
      return undefined;
  }
}

/** What a statement changes in the declared column types of `catalog`'s tables (others are not kept). */
export function columnChanges(statement: Statement, session: { catalog?: string; schema?: string }, catalog: string): ColumnChange[] {
  const table = (name: QualifiedName): QualifiedTable | undefined => {
    const resolved = qualifyTable(partsOf(name), session.catalog, session.schema);
    return resolved?.catalog === catalog ? resolved : undefined;
  };
  const one = (name: QualifiedName, change: (t: QualifiedTable) => ColumnChange): ColumnChange[] => {
    const t = table(name);
    return t ? [change(t)] : [];
  };
  switch (statement.type) {
    case 'CreateTable': {
      const columns: [string, PrestoType][] = [];
      for (const e of statement.elements) {
        const type = e.type === 'ColumnDefinition' ? lossyColumnType(e.columnType) : undefined;
        if (e.type === 'ColumnDefinition' && type) columns.push([fold(e.name.parts[e.name.parts.length - 1]!.value), type]);
      }
      return one(statement.name, (t) => ({ kind: 'define', table: t, columns }));
    }
    case 'CreateTableAsSelect':
      return one(statement.name, (t) => ({ kind: 'define', table: t, columns: [] }));
    case 'CreateView':
      // SHOW CREATE VIEW answers the view as written in Trino SQL (DuckDB keeps only its translation).
      return one(statement.name, (t) => ({ kind: 'define', table: t, columns: [], viewSql: formatSql(statement.query) }));
    case 'DropTable':
    case 'DropView':
      return one(statement.name, (t) => ({ kind: 'drop', table: t }));
    case 'DropSchema': {
      const parts = partsOf(statement.name);
      const owner = parts.length === 2 ? parts[0]! : session.catalog ? fold(session.catalog) : undefined;
      return owner === catalog ? [{ kind: 'dropSchema', catalog, schema: parts[parts.length - 1]! }] : [];
    }
    case 'RenameTable': {
      const from = table(statement.source);
      if (!from) return [];
      const target = partsOf(statement.target);
      return [{ kind: 'rename', table: from, to: { ...from, table: target[target.length - 1]! } }];
    }
    case 'AddColumn': {
      const type = lossyColumnType(statement.column.columnType);
      const column = fold(statement.column.name.parts[statement.column.name.parts.length - 1]!.value);
      return type ? one(statement.name, (t) => ({ kind: 'addColumn', table: t, column, type })) : [];
    }
    case 'DropColumn':
      return one(statement.table, (t) => ({ kind: 'dropColumn', table: t, column: fold(statement.field.parts[0]!.value) }));
    case 'RenameColumn':
      return one(statement.table, (t) => ({ kind: 'renameColumn', table: t, column: fold(statement.source.parts[0]!.value), to: fold(statement.target.value) }));
    default:
      return [];
  }
}

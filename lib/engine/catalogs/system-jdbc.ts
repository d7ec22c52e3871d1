// What JDBC, ODBC and SQLAlchemy read from Trino's `system` catalog: system.jdbc.* (Trino's
// io.trino.connector.system.jdbc.*JdbcTable) and system.metadata.{table_comments, schema_comments,
// *_properties}, with Trino's column names, order and types. They are views in the system catalog's
// database over duckdb_databases/schemas/tables/views/columns(), so they always show the live catalogs;
// a column's DuckDB type text becomes Trino's type name and JDBC attributes through two scalar functions
// (JS), with the mapping the engine uses for a query's columns (prestoTypeOf).
import { DECLARED_TYPE_FUNCTION, declaredTypeOfText } from './declared-columns.js';
import { BIGINT, VARCHAR, type DuckDBScalarFunction, type DuckDBType } from '@duckdb/node-api';
import { textScalarFunction } from '../row-scalar-function.js';
import type { PrestoType } from '../../protocol/types.js';
import { formatType, UNBOUNDED_VARCHAR_LENGTH } from '../../protocol/presto-type.js';
import { prestoTypeOf } from '../../connectors/duckdb-types.js';
import { INFORMATION_SCHEMA, INFORMATION_SCHEMA_TABLES } from '../dialect/catalog-metadata.js';
import { informationSchemaColumns } from '../dialect/information-schema.js';
import { duckdbTypeOfText } from './duckdb-type-text.js';
import { TPCH_CATALOG, TPCH_LISTED_SCHEMAS, tpchColumnsSql, tpchSchemasSql, tpchTypeOfText } from '../../connectors/tpch/tpch-metadata.js';

type SqlType = 'VARCHAR' | 'BIGINT' | 'BOOLEAN';
type ColumnSpec = readonly [name: string, type: SqlType];

const varchar = (...names: string[]): ColumnSpec[] => names.map((n) => [n, 'VARCHAR']);
const bigint = (...names: string[]): ColumnSpec[] => names.map((n) => [n, 'BIGINT']);
const boolean = (...names: string[]): ColumnSpec[] => names.map((n) => [n, 'BOOLEAN']);

/** Trino's ColumnJdbcTable. */
const COLUMNS: ColumnSpec[] = [
  ...varchar('table_cat', 'table_schem', 'table_name', 'column_name'),
  ...bigint('data_type'),
  ...varchar('type_name'),
  ...bigint('column_size', 'buffer_length', 'decimal_digits', 'num_prec_radix', 'nullable'),
  ...varchar('remarks', 'column_def'),
  ...bigint('sql_data_type', 'sql_datetime_sub', 'char_octet_length', 'ordinal_position'),
  ...varchar('is_nullable', 'scope_catalog', 'scope_schema', 'scope_table'),
  ...bigint('source_data_type'),
  ...varchar('is_autoincrement', 'is_generatedcolumn'),
];

/** Trino's TypesJdbcTable. */
const TYPES: ColumnSpec[] = [
  ...varchar('type_name'),
  ...bigint('data_type', 'precision'),
  ...varchar('literal_prefix', 'literal_suffix', 'create_params'),
  ...bigint('nullable'),
  ...boolean('case_sensitive'),
  ...bigint('searchable'),
  ...boolean('unsigned_attribute', 'fixed_prec_scale', 'auto_increment'),
  ...varchar('local_type_name'),
  ...bigint('minimum_scale', 'maximum_scale', 'sql_data_type', 'sql_datetime_sub', 'num_prec_radix'),
];

const PROPERTIES: ColumnSpec[] = varchar('catalog_name', 'property_name', 'default_value', 'type', 'description');

/** Every table of the two schemas, in Trino's column order. */
export const SYSTEM_JDBC_TABLES: Record<'jdbc' | 'metadata', Record<string, ColumnSpec[]>> = {
  jdbc: {
    attributes: [
      ...varchar('type_cat', 'type_schem', 'type_name', 'attr_name'),
      ...bigint('data_type'),
      ...varchar('attr_type_name'),
      ...bigint('attr_size', 'decimal_digits', 'num_prec_radix', 'nullable'),
      ...varchar('remarks', 'attr_def'),
      ...bigint('sql_data_type', 'sql_datetime_sub', 'char_octet_length', 'ordinal_position'),
      ...varchar('is_nullable', 'scope_catalog', 'scope_schema', 'scope_table'),
      ...bigint('source_data_type'),
    ],
    catalogs: varchar('table_cat'),
    columns: COLUMNS,
    procedure_columns: [
      ...varchar('procedure_cat', 'procedure_schem', 'procedure_name', 'column_name'),
      ...bigint('column_type', 'data_type'),
      ...varchar('type_name'),
      ...bigint('precision', 'length', 'scale', 'radix', 'nullable'),
      ...varchar('remarks', 'column_def'),
      ...bigint('sql_data_type', 'sql_datetime_sub', 'char_octet_length', 'ordinal_position'),
      ...varchar('is_nullable', 'specific_name'),
    ],
    procedures: [...varchar('procedure_cat', 'procedure_schem', 'procedure_name', 'remarks'), ...bigint('procedure_type'), ...varchar('specific_name')],
    pseudo_columns: [
      ...varchar('table_cat', 'table_schem', 'table_name', 'column_name'),
      ...bigint('data_type', 'column_size', 'decimal_digits', 'num_prec_radix'),
      ...varchar('column_usage', 'remarks'),
      ...bigint('char_octet_length', 'is_nullable'),
    ],
    schemas: varchar('table_schem', 'table_catalog'),
    super_tables: varchar('table_cat', 'table_schem', 'table_name', 'supertable_name'),
    super_types: varchar('type_cat', 'type_schem', 'type_name', 'supertype_cat', 'supertype_schem', 'supertype_name'),
    table_types: varchar('table_type'),
    tables: varchar('table_cat', 'table_schem', 'table_name', 'table_type', 'remarks', 'type_cat', 'type_schem', 'type_name',
      'self_referencing_col_name', 'ref_generation'),
    types: TYPES,
    udts: varchar('type_cat', 'type_schem', 'type_name', 'class_name', 'data_type', 'remarks', 'base_type'),
  },
  metadata: {
    analyze_properties: PROPERTIES,
    column_properties: PROPERTIES,
    materialized_view_properties: PROPERTIES,
    schema_comments: varchar('catalog_name', 'schema_name', 'comment'),
    schema_properties: PROPERTIES,
    table_comments: varchar('catalog_name', 'schema_name', 'table_name', 'comment'),
    table_properties: PROPERTIES,
  },
};

// ---- JDBC attributes of a Trino type (ColumnJdbcTable.jdbcDataType, columnSize, decimalDigits, ...) ----

/** java.sql.Types. */
const JDBC_TYPE: Record<string, number> = {
  boolean: 16, bigint: -5, integer: 4, smallint: 5, tinyint: -6, real: 7, double: 8, decimal: 3, varchar: 12, char: 1,
  varbinary: -3, date: 91, time: 92, 'time with time zone': 2013, timestamp: 93, 'timestamp with time zone': 2014, array: 2003,
};
const JAVA_OBJECT = 2000;
/** The longest zone id Java knows (America/Argentina/ComodRivadavia). */
const MAX_TIMEZONE_LENGTH = 32;

interface TypeFields {
  length?: number;
  precision?: number;
  scale?: number;
}

export interface JdbcAttributes {
  data_type: number;
  column_size: number | null;
  decimal_digits: number | null;
  num_prec_radix: number | null;
  char_octet_length: number | null;
}

const FIXED_SIZE: Record<string, number> = { bigint: 19, integer: 10, smallint: 5, tinyint: 3, real: 24, double: 53, date: 14, varbinary: UNBOUNDED_VARCHAR_LENGTH };

export function jdbcAttributes(t: PrestoType): JdbcAttributes {
  const f = t as TypeFields;
  const p = f.precision ?? 0;
  const fraction = Math.min(p, 1) + p;
  const sizes: Record<string, number | undefined> = {
    decimal: f.precision,
    varchar: f.length ?? UNBOUNDED_VARCHAR_LENGTH,
    char: f.length ?? 1,
    time: 8 + fraction,
    'time with time zone': 8 + fraction + 6,
    timestamp: 1 + 5 + 15 + fraction,
    'timestamp with time zone': 1 + 6 + 15 + fraction + 1 + MAX_TIMEZONE_LENGTH,
  };
  const datetime = t.base.startsWith('time');
  return {
    data_type: JDBC_TYPE[t.base] ?? JAVA_OBJECT,
    column_size: FIXED_SIZE[t.base] ?? sizes[t.base] ?? null,
    decimal_digits: t.base === 'decimal' ? f.scale! : datetime ? p : null,
    num_prec_radix: ['bigint', 'integer', 'smallint', 'tinyint', 'decimal'].includes(t.base) ? 10 : t.base === 'real' || t.base === 'double' ? 2 : null,
    char_octet_length: t.base === 'varchar' || t.base === 'char' || t.base === 'varbinary' ? (t.base === 'varbinary' ? UNBOUNDED_VARCHAR_LENGTH : sizes[t.base]!) : null,
  };
}

// ---- The two scalar functions the views call ----

export const TRINO_TYPE_FUNCTION = 'vivace_trino_type';
export const JDBC_ATTRIBUTE_FUNCTION = 'vivace_jdbc_attribute';

const parsed = new Map<string, PrestoType>();

/** Trino's type of a DuckDB type text, or of a tpch column's declared type name (memoized: a catalog holds few distinct texts). */
export function prestoTypeOfText(text: string): PrestoType {
  // A memory table column's declared type (varchar(n), ...), as vivace_declared_type() writes it.
  const declared = declaredTypeOfText(text);
  if (declared) return declared;
  let type = parsed.get(text) ?? tpchTypeOfText(text);
  if (type === undefined) {
    let duckdb: DuckDBType | undefined;
    try {
      duckdb = duckdbTypeOfText(text);
    } catch {
      duckdb = undefined;
    }
    type = duckdb === undefined ? { base: text.toLowerCase() } : prestoTypeOf(duckdb);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(text, type);
  }
  return type;
}

/** vivace_trino_type(duckdb_type_text) and vivace_jdbc_attribute(duckdb_type_text, attribute). */
export function systemJdbcFunctions(): DuckDBScalarFunction[] {
  return [
    textScalarFunction(TRINO_TYPE_FUNCTION, VARCHAR, [VARCHAR], ([text]) => (text === null ? null : formatType(prestoTypeOfText(text), 'trino'))),
    textScalarFunction(JDBC_ATTRIBUTE_FUNCTION, BIGINT, [VARCHAR, VARCHAR], ([text, attribute]) => {
      if (text === null || attribute === null) return null;
      const value = jdbcAttributes(prestoTypeOfText(text))[attribute as keyof JdbcAttributes];
      return value === null || value === undefined ? null : BigInt(value);
    }),
  ];
}

// ---- jdbc.types: Trino's TypeRegistry, less its internal types (regexps, LikePattern, JsonPath, CodePoints, function, unknown) ----

/** Fixed types (TypesJdbcTable.addTypeRow(Type)): name, type for the JDBC attributes, comparable. */
const FIXED_TYPES: [string, PrestoType, boolean][] = [
  ...(['bigint', 'boolean', 'date', 'double', 'integer', 'real', 'smallint', 'tinyint', 'varbinary', 'json', 'uuid', 'ipaddress',
    'interval day to second', 'interval year to month'] as const).map((name): [string, PrestoType, boolean] => [name, { base: name }, true]),
  ...['HyperLogLog', 'P4HyperLogLog', 'SetDigest', 'tdigest'].map((name): [string, PrestoType, boolean] => [name, { base: name }, false]),
];
/** Parametric types (TypesJdbcTable.addTypeRow(ParametricType)). */
const PARAMETRIC_TYPES = ['array', 'char', 'decimal', 'map', 'qdigest', 'row', 'time', 'time with time zone', 'timestamp', 'timestamp with time zone', 'varchar'];

type Literal = string | number | boolean | null;

function typeRows(): Literal[][] {
  // DatabaseMetaData.typeNullable = 1, typeSearchable = 3, typePredNone = 0.
  const fixed = FIXED_TYPES.map(([name, type, comparable]): Literal[] => {
    const a = jdbcAttributes(type);
    return [name, a.data_type, a.column_size, null, null, null, 1, false, comparable ? 3 : 0, null, false, null, null, 0, 0, null, null, a.num_prec_radix];
  });
  const parametric = PARAMETRIC_TYPES.map((name): Literal[] => [name, name === 'array' ? 2003 : JAVA_OBJECT, null, null, null, null, 1, false, 0, null, false, null, null, 0, 0, null, null, null]);
  return [...fixed, ...parametric];
}

// ---- The views ----

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
const literal = (v: Literal) => (v === null ? 'NULL' : typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v));

/** `SELECT CAST(expr AS type) AS name, ...` in the table's column order; `exprs` by column name, NULL when absent. */
function select(columns: ColumnSpec[], exprs: Record<string, string>, rest: string): string {
  return `SELECT ${columns.map(([name, type]) => `CAST(${exprs[name] ?? 'NULL'} AS ${type}) AS ${q(name)}`).join(', ')} ${rest}`;
}

function values(columns: ColumnSpec[], rows: Literal[][], order = ''): string {
  if (rows.length === 0) return select(columns, {}, 'WHERE false');
  const exprs = Object.fromEntries(columns.map(([name], i) => [name, `c${i}`]));
  const body = rows.map((r) => `(${r.map(literal).join(', ')})`).join(', ');
  return select(columns, exprs, `FROM (VALUES ${body}) v(${columns.map((_, i) => `c${i}`).join(', ')})${order}`);
}

/**
 * The DDL of the jdbc schema and of the metadata tables, for the database being built. `catalogs` is a
 * subquery with (database_name, catalog): every DuckDB database that is a catalog, by its Presto name;
 * `connectors`, the databases whose views are tables to their users (tpch, system).
 */
export function systemJdbcSql(database: string, catalogs: string, connectors: string[]): string[] {
  const connectorList = connectors.map(literal).join(', ');
  // The tpch connector lists its fixed schemas only (sf10 or sf0.1 are there once read, and not listed),
  // and declares its columns' types (varchar(44), where DuckDB keeps varchar): those come from tpch-metadata.ts.
  const listedTpch = (alias: string) => `(${alias}.database_name <> '${TPCH_CATALOG}' OR ${alias}.schema_name IN (${TPCH_LISTED_SCHEMAS.map(literal).join(', ')}))`;
  const infoTables = INFORMATION_SCHEMA_TABLES.map((t) => `(${literal(t)})`).join(', ');
  const relations = `(
    SELECT c.catalog, t.schema_name, t.table_name, 'TABLE' AS table_type, t.comment
      FROM duckdb_tables() t JOIN ${catalogs} c USING (database_name) WHERE NOT t.internal
    UNION ALL
    SELECT c.catalog, v.schema_name, v.view_name, CASE WHEN v.database_name IN (${connectorList}) THEN 'TABLE' ELSE 'VIEW' END, v.comment
      FROM duckdb_views() v JOIN ${catalogs} c USING (database_name) WHERE NOT v.internal AND ${listedTpch('v')}
    UNION ALL
    SELECT c.catalog, '${INFORMATION_SCHEMA}', i.table_name, 'TABLE', NULL FROM ${catalogs} c CROSS JOIN (VALUES ${infoTables}) i(table_name)
  ) r`;
  // As SHOW SCHEMAS: DuckDB's `main` only while something lives in it, and information_schema everywhere.
  const schemas = `(
    SELECT c.catalog, s.schema_name, s.comment FROM duckdb_schemas() s JOIN ${catalogs} c USING (database_name)
    WHERE s.schema_name NOT IN ('${INFORMATION_SCHEMA}', 'pg_catalog') AND ${listedTpch('s')} AND (s.schema_name <> 'main' OR EXISTS (
      SELECT 1 FROM duckdb_tables() t WHERE t.database_name = s.database_name AND t.schema_name = 'main'
      UNION ALL SELECT 1 FROM duckdb_views() v WHERE v.database_name = s.database_name AND v.schema_name = 'main' AND NOT v.internal))
    UNION ALL SELECT catalog, '${INFORMATION_SCHEMA}', NULL FROM ${catalogs}
  ) s`;
  const infoColumns = INFORMATION_SCHEMA_TABLES.flatMap((table) =>
    informationSchemaColumns(table).map((c, i) => `(${[table, c.name, c.type.base.toUpperCase(), i + 1].map(literal).join(', ')})`),
  ).join(', ');
  const columns = `(
    SELECT c.catalog, k.schema_name, k.table_name, k.column_name,
      coalesce(${DECLARED_TYPE_FUNCTION}(k.database_name, k.schema_name, k.table_name, k.column_name), k.data_type) AS data_type,
      k.column_index AS ordinal_position, k.is_nullable, k.comment
      FROM duckdb_columns() k JOIN ${catalogs} c USING (database_name) WHERE NOT k.internal AND k.database_name <> '${TPCH_CATALOG}'
    UNION ALL
    SELECT c.catalog, s.schema_name, t.table_name, t.column_name, t.data_type, t.ordinal_position, false, NULL
      FROM ${catalogs} c CROSS JOIN ${tpchSchemasSql('s')} CROSS JOIN ${tpchColumnsSql('t')} WHERE c.database_name = '${TPCH_CATALOG}'
    UNION ALL
    SELECT c.catalog, '${INFORMATION_SCHEMA}', i.table_name, i.column_name, i.data_type, i.ordinal_position, true, NULL
      FROM ${catalogs} c CROSS JOIN (VALUES ${infoColumns}) i(table_name, column_name, data_type, ordinal_position)
  ) k`;
  const attribute = (name: keyof JdbcAttributes) => `${JDBC_ATTRIBUTE_FUNCTION}(k.data_type, '${name}')`;
  const { jdbc, metadata } = SYSTEM_JDBC_TABLES;
  const views: Record<string, string> = {
    'jdbc.catalogs': select(jdbc.catalogs!, { table_cat: 'catalog' }, `FROM ${catalogs} c ORDER BY 1`),
    'jdbc.schemas': select(jdbc.schemas!, { table_schem: 'schema_name', table_catalog: 'catalog' }, `FROM ${schemas} ORDER BY 2, 1`),
    'jdbc.tables': select(jdbc.tables!, { table_cat: 'catalog', table_schem: 'schema_name', table_name: 'table_name', table_type: 'table_type', remarks: 'comment' },
      `FROM ${relations} ORDER BY 1, 2, 3`),
    'jdbc.columns': select(
      COLUMNS,
      {
        table_cat: 'k.catalog', table_schem: 'k.schema_name', table_name: 'k.table_name', column_name: 'k.column_name',
        data_type: attribute('data_type'), type_name: `${TRINO_TYPE_FUNCTION}(k.data_type)`, column_size: attribute('column_size'),
        buffer_length: '0', decimal_digits: attribute('decimal_digits'), num_prec_radix: attribute('num_prec_radix'),
        // DatabaseMetaData.columnNullableUnknown, as Trino answers; is_nullable says what is known.
        nullable: '2', remarks: 'k.comment', char_octet_length: attribute('char_octet_length'), ordinal_position: 'k.ordinal_position',
        is_nullable: "CASE WHEN k.is_nullable THEN 'YES' ELSE 'NO' END",
      },
      `FROM ${columns} ORDER BY 1, 2, 3, k.ordinal_position`,
    ),
    'jdbc.types': values(TYPES, typeRows()),
    'jdbc.table_types': values(jdbc.table_types!, [['TABLE'], ['VIEW']]),
    'metadata.table_comments': select(metadata.table_comments!, { catalog_name: 'catalog', schema_name: 'schema_name', table_name: 'table_name', comment: 'comment' },
      `FROM ${relations} ORDER BY 1, 2, 3`),
    'metadata.schema_comments': select(metadata.schema_comments!, { catalog_name: 'catalog', schema_name: 'schema_name', comment: 'comment' }, `FROM ${schemas} ORDER BY 1, 2`),
  };
  // The rest hold no rows here, as in Trino (no procedures, user-defined types or properties).
  for (const [schema, tables] of Object.entries(SYSTEM_JDBC_TABLES)) {
    for (const [table, spec] of Object.entries(tables)) views[`${schema}.${table}`] ??= values(spec, []);
  }
  return [
    `CREATE SCHEMA ${q(database)}.jdbc`,
    ...Object.entries(views).map(([name, sql]) => {
      const [schema, table] = name.split('.') as [string, string];
      return `CREATE VIEW ${q(database)}.${q(schema)}.${q(table)} AS ${sql}`;
    }),
  ];
}

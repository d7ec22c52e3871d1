// system.jdbc.* and system.metadata.{table_comments, *_properties} on a real engine: Trino's columns and
// types (io.trino.connector.system.jdbc.*JdbcTable, TableCommentSystemTable, AbstractPropertiesSystemTable),
// rows for a memory table and tpch.tiny, and the queries the Trino SQLAlchemy dialect runs for reflection.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { formatType } from '../../../lib/protocol/presto-type.js';
import { SystemTablesBinding } from '../../../lib/connectors/system/system-tables.js';
import { SYSTEM_JDBC_TABLES } from '../../../lib/engine/catalogs/system-jdbc.js';
import { runSql, testSession } from '../engine-helpers.js';

const V = 'varchar';
const B = 'bigint';

/** Trino's tables, column by column (name:type), as its *JdbcTable / *SystemTable classes declare them. */
const TRINO: Record<string, string> = {
  'jdbc.catalogs': 'table_cat:varchar',
  'jdbc.schemas': 'table_schem:varchar table_catalog:varchar',
  'jdbc.tables': 'table_cat:varchar table_schem:varchar table_name:varchar table_type:varchar remarks:varchar type_cat:varchar type_schem:varchar '
    + 'type_name:varchar self_referencing_col_name:varchar ref_generation:varchar',
  'jdbc.columns': 'table_cat:varchar table_schem:varchar table_name:varchar column_name:varchar data_type:bigint type_name:varchar column_size:bigint '
    + 'buffer_length:bigint decimal_digits:bigint num_prec_radix:bigint nullable:bigint remarks:varchar column_def:varchar sql_data_type:bigint '
    + 'sql_datetime_sub:bigint char_octet_length:bigint ordinal_position:bigint is_nullable:varchar scope_catalog:varchar scope_schema:varchar '
    + 'scope_table:varchar source_data_type:bigint is_autoincrement:varchar is_generatedcolumn:varchar',
  'jdbc.types': 'type_name:varchar data_type:bigint precision:bigint literal_prefix:varchar literal_suffix:varchar create_params:varchar nullable:bigint '
    + 'case_sensitive:boolean searchable:bigint unsigned_attribute:boolean fixed_prec_scale:boolean auto_increment:boolean local_type_name:varchar '
    + 'minimum_scale:bigint maximum_scale:bigint sql_data_type:bigint sql_datetime_sub:bigint num_prec_radix:bigint',
  'jdbc.table_types': 'table_type:varchar',
  'jdbc.super_tables': 'table_cat:varchar table_schem:varchar table_name:varchar supertable_name:varchar',
  'jdbc.super_types': 'type_cat:varchar type_schem:varchar type_name:varchar supertype_cat:varchar supertype_schem:varchar supertype_name:varchar',
  'jdbc.udts': 'type_cat:varchar type_schem:varchar type_name:varchar class_name:varchar data_type:varchar remarks:varchar base_type:varchar',
  'jdbc.attributes': 'type_cat:varchar type_schem:varchar type_name:varchar attr_name:varchar data_type:bigint attr_type_name:varchar attr_size:bigint '
    + 'decimal_digits:bigint num_prec_radix:bigint nullable:bigint remarks:varchar attr_def:varchar sql_data_type:bigint sql_datetime_sub:bigint '
    + 'char_octet_length:bigint ordinal_position:bigint is_nullable:varchar scope_catalog:varchar scope_schema:varchar scope_table:varchar source_data_type:bigint',
  'jdbc.procedures': 'procedure_cat:varchar procedure_schem:varchar procedure_name:varchar remarks:varchar procedure_type:bigint specific_name:varchar',
  'jdbc.procedure_columns': 'procedure_cat:varchar procedure_schem:varchar procedure_name:varchar column_name:varchar column_type:bigint data_type:bigint '
    + 'type_name:varchar precision:bigint length:bigint scale:bigint radix:bigint nullable:bigint remarks:varchar column_def:varchar sql_data_type:bigint '
    + 'sql_datetime_sub:bigint char_octet_length:bigint ordinal_position:bigint is_nullable:varchar specific_name:varchar',
  'jdbc.pseudo_columns': 'table_cat:varchar table_schem:varchar table_name:varchar column_name:varchar data_type:bigint column_size:bigint decimal_digits:bigint '
    + 'num_prec_radix:bigint column_usage:varchar remarks:varchar char_octet_length:bigint is_nullable:bigint',
  'metadata.table_comments': 'catalog_name:varchar schema_name:varchar table_name:varchar comment:varchar',
  'metadata.schema_comments': 'catalog_name:varchar schema_name:varchar comment:varchar',
  'metadata.schema_properties': 'catalog_name:varchar property_name:varchar default_value:varchar type:varchar description:varchar',
  'metadata.table_properties': 'catalog_name:varchar property_name:varchar default_value:varchar type:varchar description:varchar',
  'metadata.column_properties': 'catalog_name:varchar property_name:varchar default_value:varchar type:varchar description:varchar',
  'metadata.analyze_properties': 'catalog_name:varchar property_name:varchar default_value:varchar type:varchar description:varchar',
  'metadata.materialized_view_properties': 'catalog_name:varchar property_name:varchar default_value:varchar type:varchar description:varchar',
};

/** The jdbc.columns attributes JDBC reads: type_name, data_type, column_size, decimal_digits, num_prec_radix, char_octet_length. */
const ATTRIBUTES = 'column_name, type_name, data_type, column_size, decimal_digits, num_prec_radix, char_octet_length, ordinal_position, is_nullable';

describe('system.jdbc and system.metadata (engine)', function () {
  this.timeout(60_000);
  let engine: Engine;
  let dir: string;
  const session = testSession({ catalog: 'memory', schema: 'default' });
  const run = (sql: string) => runSql(engine, sql, session);
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-jdbc-spec-'));
    engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections: 2, system: new SystemTablesBinding() });
    await run(`CREATE TABLE memory.default.people (id bigint NOT NULL, name varchar(25), score decimal(15,2), born date, seen timestamp(3),
      at timestamp(6) with time zone, ok boolean, r real, d double, n integer, s smallint, t tinyint, tags array(varchar), attrs map(varchar, integer),
      pos row(x double, y double), bytes varbinary)`);
    await run(`CREATE VIEW memory.default.adults AS SELECT id, name FROM memory.default.people`);
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has every table with Trino’s columns, in order, with Trino’s types', async () => {
    const listed = Object.entries(SYSTEM_JDBC_TABLES).flatMap(([schema, tables]) => Object.keys(tables).map((t) => `${schema}.${t}`));
    expect(listed.sort()).to.deep.equal(Object.keys(TRINO).sort());
    for (const [table, columns] of Object.entries(TRINO)) {
      const out = await run(`SELECT * FROM system.${table}`);
      expect(out.plan.columns.map((c) => `${c.name}:${formatType(c.type)}`).join(' '), table).to.equal(columns);
    }
  });

  it('lists them as tables of the system catalog', async () => {
    expect((await run('SHOW SCHEMAS FROM system')).rows).to.deep.equal([['information_schema'], ['jdbc'], ['metadata'], ['runtime']]);
    expect((await run('SHOW TABLES FROM system.jdbc')).rows.map((r) => r[0])).to.include.members(['catalogs', 'columns', 'schemas', 'tables', 'types', 'udts']);
    const described = await run('DESCRIBE system.jdbc.columns');
    expect(described.rows.slice(3, 6).map((r) => r.slice(0, 2))).to.deep.equal([['column_name', V], ['data_type', B], ['type_name', V]]);
  });

  it('jdbc.catalogs and jdbc.schemas list every catalog and schema as SHOW does', async () => {
    expect((await run('SELECT * FROM system.jdbc.catalogs')).rows).to.deep.equal([['memory'], ['system'], ['tpch']]);
    const schemas = await run(`SELECT table_schem FROM system.jdbc.schemas WHERE table_catalog = 'tpch'`);
    expect(schemas.rows).to.deep.equal((await run('SHOW SCHEMAS FROM tpch')).rows);
    const memory = await run(`SELECT * FROM system.jdbc.schemas WHERE table_catalog = 'memory'`);
    expect(memory.rows).to.deep.equal([['default', 'memory'], ['information_schema', 'memory']]);
  });

  it('jdbc.tables: TABLE and VIEW, connector tables are tables, information_schema included', async () => {
    const memory = await run(`SELECT table_cat, table_schem, table_name, table_type, remarks FROM system.jdbc.tables WHERE table_cat = 'memory'`);
    expect(memory.rows).to.deep.equal([
      ['memory', 'default', 'adults', 'VIEW', null],
      ['memory', 'default', 'people', 'TABLE', null],
      ['memory', 'information_schema', 'columns', 'TABLE', null],
      ['memory', 'information_schema', 'schemata', 'TABLE', null],
      ['memory', 'information_schema', 'tables', 'TABLE', null],
      ['memory', 'information_schema', 'views', 'TABLE', null],
    ]);
    const tiny = await run(`SELECT table_name, table_type FROM system.jdbc.tables WHERE table_cat = 'tpch' AND table_schem = 'tiny'`);
    expect(tiny.rows).to.deep.equal(['customer', 'lineitem', 'nation', 'orders', 'part', 'partsupp', 'region', 'supplier'].map((t) => [t, 'TABLE']));
    const views = await run(`SELECT count(*) FROM system.jdbc.tables WHERE table_type = 'VIEW'`);
    expect(views.rows).to.deep.equal([[1]]);
  });

  it('jdbc.columns: Trino type names and JDBC attributes of a memory table', async () => {
    const out = await run(`SELECT ${ATTRIBUTES} FROM system.jdbc.columns WHERE table_cat = 'memory' AND table_schem = 'default' AND table_name = 'people'`);
    const max = 2147483647;
    expect(out.rows).to.deep.equal([
      ['id', 'bigint', -5, 19, null, 10, null, 1, 'NO'],
      // DuckDB keeps no varchar length; the table's declaration does (declared-columns.ts).
      ['name', 'varchar(25)', 12, 25, null, null, 25, 2, 'YES'],
      ['score', 'decimal(15,2)', 3, 15, 2, 10, null, 3, 'YES'],
      ['born', 'date', 91, 14, null, null, null, 4, 'YES'],
      ['seen', 'timestamp(3)', 93, 25, 3, null, null, 5, 'YES'],
      ['at', 'timestamp(6) with time zone', 2014, 62, 6, null, null, 6, 'YES'],
      ['ok', 'boolean', 16, null, null, null, null, 7, 'YES'],
      ['r', 'real', 7, 24, null, 2, null, 8, 'YES'],
      ['d', 'double', 8, 53, null, 2, null, 9, 'YES'],
      ['n', 'integer', 4, 10, null, 10, null, 10, 'YES'],
      ['s', 'smallint', 5, 5, null, 10, null, 11, 'YES'],
      ['t', 'tinyint', -6, 3, null, 10, null, 12, 'YES'],
      ['tags', 'array(varchar)', 2003, null, null, null, null, 13, 'YES'],
      ['attrs', 'map(varchar, integer)', 2000, null, null, null, null, 14, 'YES'],
      ['pos', 'row(x double, y double)', 2000, null, null, null, null, 15, 'YES'],
      ['bytes', 'varbinary', -3, max, null, null, max, 16, 'YES'],
    ]);
    const fixed = await run(`SELECT DISTINCT buffer_length, nullable, column_def, sql_data_type, scope_table, is_autoincrement FROM system.jdbc.columns`);
    expect(fixed.rows).to.deep.equal([[0, 2, null, null, null, null]]);
  });

  it('jdbc.columns agrees with DESCRIBE, for tpch.tiny before and after its data is generated', async () => {
    const columns = (table: string) => run(`SELECT column_name, type_name FROM system.jdbc.columns WHERE table_cat = 'tpch' AND table_schem = 'tiny' AND table_name = '${table}'`);
    const before = await columns('lineitem');
    expect(before.rows.slice(0, 5)).to.deep.equal([['orderkey', B], ['partkey', B], ['suppkey', B], ['linenumber', 'integer'], ['quantity', 'double']]);
    expect((await run('SELECT count(*) FROM tpch.tiny.nation')).rows).to.deep.equal([[25]]);
    expect((await columns('nation')).rows).to.deep.equal([['nationkey', B], ['name', 'varchar(25)'], ['regionkey', B], ['comment', 'varchar(152)']]);
    for (const table of ['nation', 'lineitem', 'orders']) {
      const described = (await run(`DESCRIBE tpch.tiny.${table}`)).rows.map((r) => r.slice(0, 2));
      expect((await columns(table)).rows, table).to.deep.equal(described);
    }
    const positions = await run(`SELECT ordinal_position, data_type FROM system.jdbc.columns WHERE table_cat = 'tpch' AND table_schem = 'tiny' AND table_name = 'lineitem' AND column_name = 'shipdate'`);
    expect(positions.rows).to.deep.equal([[11, 91]]);
  });

  it('lists the tpch schemas Trino lists, and the connector\'s varchar bounds with their JDBC sizes', async () => {
    const schemas = await run(`SELECT table_schem FROM system.jdbc.schemas WHERE table_catalog = 'tpch'`);
    expect(schemas.rows.map((r) => r[0])).to.deep.equal(['information_schema', 'sf1', 'sf100', 'sf1000', 'sf10000', 'sf100000', 'sf300', 'sf3000', 'sf30000', 'tiny']);
    const tables = await run(`SELECT DISTINCT table_schem FROM system.jdbc.tables WHERE table_cat = 'tpch' AND table_schem <> 'information_schema' ORDER BY 1`);
    expect(tables.rows.map((r) => r[0])).to.deep.equal(['sf1', 'sf100', 'sf1000', 'sf10000', 'sf100000', 'sf300', 'sf3000', 'sf30000', 'tiny']);
    const comment = await run(`SELECT type_name, data_type, column_size, char_octet_length, is_nullable FROM system.jdbc.columns
      WHERE table_cat = 'tpch' AND table_schem = 'sf3000' AND table_name = 'lineitem' AND column_name IN ('returnflag', 'comment') ORDER BY ordinal_position`);
    expect(comment.rows).to.deep.equal([['varchar(1)', 12, 1, 1, 'NO'], ['varchar(44)', 12, 44, 44, 'NO']]);
  });

  it('jdbc.columns lists the system tables and the information_schema tables too', async () => {
    const own = await run(`SELECT column_name, type_name FROM system.jdbc.columns WHERE table_cat = 'system' AND table_schem = 'jdbc' AND table_name = 'catalogs'`);
    expect(own.rows).to.deep.equal([['table_cat', V]]);
    const info = await run(`SELECT column_name, type_name, ordinal_position FROM system.jdbc.columns WHERE table_cat = 'memory' AND table_schem = 'information_schema' AND table_name = 'schemata'`);
    expect(info.rows).to.deep.equal([['catalog_name', V, 1], ['schema_name', V, 2]]);
  });

  it('jdbc.types lists Trino’s types with their JDBC codes', async () => {
    const out = await run('SELECT type_name, data_type, precision, num_prec_radix, searchable FROM system.jdbc.types');
    const byName = new Map(out.rows.map((r) => [r[0], r.slice(1)]));
    expect(byName.get('bigint')).to.deep.equal([-5, 19, 10, 3]);
    expect(byName.get('integer')).to.deep.equal([4, 10, 10, 3]);
    expect(byName.get('double')).to.deep.equal([8, 53, 2, 3]);
    expect(byName.get('varbinary')).to.deep.equal([-3, 2147483647, null, 3]);
    expect(byName.get('date')).to.deep.equal([91, 14, null, 3]);
    expect(byName.get('HyperLogLog')).to.deep.equal([2000, null, null, 0]);
    expect(byName.get('array')).to.deep.equal([2003, null, null, 0]);
    for (const parametric of ['varchar', 'char', 'decimal', 'map', 'row', 'time', 'timestamp', 'timestamp with time zone']) {
      expect(byName.get(parametric), parametric).to.deep.equal([2000, null, null, 0]);
    }
    expect([...byName.keys()]).to.include.members(['boolean', 'tinyint', 'smallint', 'real', 'json', 'uuid', 'interval year to month', 'interval day to second']);
  });

  it('table_types holds TABLE and VIEW; super_tables, udts and the property tables are empty', async () => {
    expect((await run('SELECT * FROM system.jdbc.table_types')).rows).to.deep.equal([['TABLE'], ['VIEW']]);
    for (const table of ['jdbc.super_tables', 'jdbc.super_types', 'jdbc.udts', 'jdbc.procedures', 'metadata.schema_properties', 'metadata.table_properties', 'metadata.column_properties']) {
      expect((await run(`SELECT count(*) FROM system.${table}`)).rows, table).to.deep.equal([[0]]);
    }
  });

  it('metadata.table_comments carries the comment of a table', async () => {
    await run(`COMMENT ON TABLE memory.default.people IS 'who is who'`);
    const out = await run(`SELECT * FROM system.metadata.table_comments WHERE catalog_name = 'memory' AND schema_name = 'default'`);
    expect(out.rows).to.deep.equal([['memory', 'default', 'adults', null], ['memory', 'default', 'people', 'who is who']]);
    const remarks = await run(`SELECT remarks FROM system.jdbc.tables WHERE table_cat = 'memory' AND table_name = 'people'`);
    expect(remarks.rows).to.deep.equal([['who is who']]);
  });

  describe('the queries of the Trino SQLAlchemy dialect (trino/sqlalchemy/dialect.py)', () => {
    it('get_catalog_names', async () => {
      expect((await run('SELECT "table_cat"\nFROM "system"."jdbc"."catalogs"')).rows).to.deep.equal([['memory'], ['system'], ['tpch']]);
    });

    it('get_schema_names', async () => {
      const out = await run('SELECT "schema_name"\nFROM "information_schema"."schemata"');
      expect(out.rows.map((r) => r[0]).sort()).to.deep.equal(['default', 'information_schema']);
    });

    it('get_table_names and get_view_names', async () => {
      const tables = await run(`SELECT "table_name"\nFROM "information_schema"."tables"\nWHERE "table_schema" = 'default'\n  AND "table_type" = 'BASE TABLE'`);
      expect(tables.rows).to.deep.equal([['people']]);
      const views = await run(`SELECT "table_name"\nFROM "information_schema"."tables"\nWHERE "table_schema" = 'default'\n  AND "table_type" = 'VIEW'`);
      expect(views.rows).to.deep.equal([['adults']]);
    });

    it('get_columns', async () => {
      const out = await run(`SELECT
    "column_name",
    "data_type",
    "column_default",
    UPPER("is_nullable") AS "is_nullable",
    "comment"
FROM "information_schema"."columns"
WHERE "table_schema" = 'default'
  AND "table_name" = 'adults'
ORDER BY "ordinal_position" ASC`);
      // A view's columns carry no NOT NULL.
      expect(out.rows).to.deep.equal([['id', B, null, 'YES', null], ['name', V, null, 'YES', null]]);
    });

    it('get_table_comment, with literals and with parameters', async () => {
      const sql = `SELECT "comment"\nFROM "system"."metadata"."table_comments"\nWHERE "catalog_name" = ?\n  AND "schema_name" = ?\n  AND "table_name" = ?`;
      const literal = await run(sql.replace('?', `'memory'`).replace('?', `'default'`).replace('?', `'people'`));
      expect(literal.rows).to.deep.equal([['who is who']]);
      const immediate = await run(`EXECUTE IMMEDIATE '${sql.replace(/'/g, "''")}' USING 'memory', 'default', 'people'`);
      expect(immediate.rows).to.deep.equal([['who is who']]);
    });

    it('work with a session on the system catalog (the dialect’s default)', async () => {
      const system = testSession({ catalog: 'system', schema: 'jdbc' });
      expect((await runSql(engine, 'SELECT "table_cat" FROM catalogs', system)).rows).to.have.length(3);
      const tables = await runSql(engine, `SELECT "table_name" FROM "information_schema"."tables" WHERE "table_schema" = 'jdbc' AND "table_type" = 'BASE TABLE'`, system);
      expect(tables.rows.map((r) => r[0])).to.include.members(['catalogs', 'columns', 'tables', 'types']);
    });
  });
});

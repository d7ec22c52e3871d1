// The tables and schemas rules held against a statement's tree (lib/sql/table-access.ts), and the guarded
// read the translation prints for a table with masks and a row filter (duckdb-printer.ts's guardedRead).
import { expect } from 'chai';
import fc from 'fast-check';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { translateStatement, type GuardedRead, type TranslationContext } from '../../lib/sql/duckdb-translation.js';
import type { QualifiedTable } from '../../lib/sql/names.js';
import { parseExpression, parseStatement } from '../../lib/sql/parser.js';
import { QUERY_CORPUS } from './sql-corpus.js';
import { statement } from './sql-generators.js';
import { checkTableAccess, TABLE_PRIVILEGES, type TableAccessContext, type TableGrant, type TablePrivilege } from '../../lib/sql/table-access.js';

const grant = (privileges: TablePrivilege[], restrictedColumns: string[] = []): TableGrant => ({ privileges: new Set(privileges), restrictedColumns });
const key = (t: QualifiedTable) => `${t.catalog}.${t.schema}.${t.table}`;

/** alice: SELECT on people but its ssn, everything on mine.*, INSERT on log, nothing elsewhere; owns schema memory.own. */
const GRANTS: Record<string, TableGrant> = {
  'memory.default.people': grant(['SELECT'], ['ssn', 'salary']),
  'memory.default.log': grant(['INSERT']),
  'memory.default.shared': grant(['GRANT_SELECT']),
};
const context: TableAccessContext = {
  catalog: 'memory',
  schema: 'default',
  user: 'alice',
  grantOf: (t) => GRANTS[key(t)] ?? (t.table.startsWith('mine') ? grant([...TABLE_PRIVILEGES]) : grant([])),
  isSchemaOwner: (catalog, schema) => catalog === 'memory' && schema === 'own',
  hasMasks: (t) => t.table === 'mine_masked',
  schemaVisible: (catalog, schema) => catalog === 'memory' && (schema === 'default' || schema === 'own'),
};

const check = (sql: string, ctx: TableAccessContext = context) => checkTableAccess(parseStatement(sql), ctx);
const denial = (sql: string, ctx: TableAccessContext = context): string => {
  try {
    check(sql, ctx);
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    return `${(err as VivaceError).errorName}: ${(err as VivaceError).message}`;
  }
  return 'allowed';
};
const denied = (message: string) => `PERMISSION_DENIED: Access Denied: ${message}`;

describe('SQL: table access rules on the tree', () => {
  describe('reads', () => {
    it('needs SELECT or GRANT_SELECT on every table read, wherever the statement reads it', () => {
      expect(denial('SELECT id FROM people')).to.equal('allowed');
      expect(denial('SELECT id FROM shared')).to.equal('allowed');
      for (const sql of [
        'SELECT id FROM secret',
        'SELECT (SELECT 1 FROM memory.default.secret)',
        'SELECT id FROM people WHERE id IN (SELECT id FROM "SECRET")',
        'SELECT id FROM people UNION SELECT id FROM secret',
        'WITH s AS (SELECT * FROM secret) SELECT 1',
        'EXPLAIN ANALYZE SELECT * FROM secret',
        'INSERT INTO mine SELECT * FROM secret',
        'CREATE TABLE mine2 AS SELECT * FROM secret',
        'DELETE FROM mine WHERE id IN (SELECT id FROM secret)',
        'SHOW STATS FOR secret',
      ]) {
        expect(denial(sql), sql).to.equal(denied('Cannot select from table memory.default.secret'));
      }
      expect(denial('SELECT * FROM log')).to.equal(denied('Cannot select from table memory.default.log'));
    });

    it('reads CTEs as CTEs, a write target as no read, and leaves PREPARE to EXECUTE', () => {
      expect(denial('WITH secret AS (SELECT 1 AS x) SELECT x FROM secret')).to.equal('allowed');
      expect(denial('INSERT INTO log VALUES (1)')).to.equal('allowed');
      expect(denial('PREPARE p FROM SELECT * FROM secret')).to.equal('allowed');
    });

    it('refuses a restricted column named anywhere, or a * that covers its table, naming only those columns', () => {
      const columns = (names: string) => denied(`Cannot select from columns [${names}] in table or view memory.default.people`);
      expect(denial('SELECT id, name FROM people')).to.equal('allowed');
      expect(denial('SELECT count(*) FROM people')).to.equal('allowed');
      expect(denial('SELECT ssn FROM people')).to.equal(columns('ssn'));
      expect(denial('SELECT p."SSN", p.salary FROM people p')).to.equal(columns('ssn, salary'));
      expect(denial('SELECT * FROM people')).to.equal(columns('ssn, salary'));
      expect(denial('SELECT p.* FROM people p JOIN mine m ON p.id = m.id')).to.equal(columns('ssn, salary'));
      expect(denial('TABLE people')).to.equal(columns('ssn, salary'));
      expect(denial('SELECT id FROM people ORDER BY salary')).to.equal(columns('salary'));
      // m.* covers mine only; an alias named like a column is no reference to it.
      expect(denial('SELECT m.* FROM people p JOIN mine m ON p.id = m.id')).to.equal('allowed');
      expect(denial('SELECT name AS ssn FROM people')).to.equal('allowed');
      expect(denial('SELECT t.x FROM people AS ssn(x, y, z, w)')).to.equal('allowed');
    });

    it('asks GRANT_SELECT of a view\'s tables, as its readers read them with its creator\'s rights', () => {
      expect(denial('CREATE VIEW mine_v AS SELECT id FROM people')).to.equal(denied("View owner 'alice' cannot create view that selects from memory.default.people"));
      expect(denial('CREATE VIEW mine_v AS SELECT id FROM shared')).to.equal('allowed');
    });
  });

  describe('writes and metadata', () => {
    it('needs the privilege of each write, with Trino\'s message', () => {
      const t = 'memory.default.people';
      expect(denial('INSERT INTO people VALUES (1)')).to.equal(denied(`Cannot insert into table ${t}`));
      expect(denial('DELETE FROM people')).to.equal(denied(`Cannot delete from table ${t}`));
      expect(denial('TRUNCATE TABLE people')).to.equal(denied(`Cannot truncate table ${t}`));
      expect(denial('UPDATE people SET name = 1, id = 2')).to.equal(denied(`Cannot update columns [name, id] in table ${t}`));
      expect(denial('DROP TABLE people')).to.equal(denied(`Cannot drop table ${t}`));
      expect(denial('CREATE TABLE people2 (a integer)')).to.equal(denied('Cannot create table memory.default.people2'));
      expect(denial('ALTER TABLE people ADD COLUMN x integer')).to.equal(denied(`Cannot add a column to table ${t}`));
      expect(denial('ALTER TABLE people DROP COLUMN name')).to.equal(denied(`Cannot drop a column from table ${t}`));
      expect(denial('ALTER TABLE people RENAME COLUMN name TO n')).to.equal(denied(`Cannot rename a column in table ${t}`));
      expect(denial('COMMENT ON COLUMN people.name IS \'x\'')).to.equal(denied(`Cannot comment column to ${t}`));
      expect(denial('ALTER TABLE mine RENAME TO people2')).to.equal(denied('Cannot rename table from memory.default.mine to memory.default.people2'));
      expect(denial('ALTER TABLE mine RENAME TO mine3')).to.equal('allowed');
      expect(denial('UPDATE mine_masked SET a = 1')).to.equal('NOT_SUPPORTED: Updating a table with column masks is not supported');
      expect(denial('DELETE FROM mine_masked WHERE a = 1')).to.equal('NOT_SUPPORTED: Delete from table with column mask');
      expect(denial('EXPLAIN INSERT INTO people VALUES (1)')).to.equal(denied(`Cannot insert into table ${t}`));
    });

    it('needs schema ownership for CREATE and DROP SCHEMA, SHOW CREATE SCHEMA', () => {
      expect(denial('CREATE SCHEMA memory.own')).to.equal('allowed');
      expect(denial('CREATE SCHEMA other')).to.equal(denied('Cannot create schema memory.other'));
      expect(denial('DROP SCHEMA memory.other')).to.equal(denied('Cannot drop schema memory.other'));
      expect(denial('SHOW CREATE SCHEMA memory.other')).to.equal(denied('Cannot show create schema for memory.other'));
    });

    it('needs some right in a schema to show its tables', () => {
      expect(denial('SHOW TABLES')).to.equal('allowed');
      expect(denial('SHOW TABLES FROM memory.own')).to.equal('allowed');
      expect(denial('SHOW TABLES FROM hidden')).to.equal(denied('Cannot show tables of schema memory.hidden'));
    });

    it('needs a privilege to show columns, ownership to show create table', () => {
      expect(denial('SHOW COLUMNS FROM log')).to.equal('allowed');
      expect(denial('DESCRIBE secret')).to.equal(denied('Cannot show columns of table memory.default.secret'));
      expect(denial('SHOW CREATE TABLE people')).to.equal(denied('Cannot show create table for memory.default.people'));
      expect(denial('SHOW CREATE TABLE mine')).to.equal('allowed');
    });
  });

  describe('guarded reads in the translation', () => {
    const guarded = (table: QualifiedTable): GuardedRead | undefined =>
      table.table !== 'people'
        ? undefined
        : {
            columns: ['id', 'name', 'ssn'],
            excluded: [],
            masks: [{ column: 'ssn', expression: parseExpression("'***'"), text: "'***'", context: base }],
            filter: { expression: parseExpression("region = 'eu'"), text: "region = 'eu'", context: base },
          };
    const base: TranslationContext = { catalog: 'memory', schema: 'default', databaseOf: (c) => c };
    const ctx: TranslationContext = { ...base, guardedRead: guarded };

    it('reads the table through a subquery of its masked columns and filtered rows, named as the table', () => {
      const translation = translateStatement(parseStatement('SELECT ssn FROM people'), 'SELECT ssn FROM people', ctx);
      expect(translation.sql).to.equal(
        `SELECT "ssn" FROM (SELECT "id", "name", CASE WHEN false THEN "ssn" ELSE ('***') END AS "ssn" FROM "memory"."default"."people" WHERE "region" = 'eu') AS "people"`,
      );
      expect(translation.guarded).to.have.length(1);
      expect(translation.guarded[0]).to.deep.include({ table: { catalog: 'memory', schema: 'default', table: 'people' }, location: { lineNumber: 1, columnNumber: 17 } });
      expect(translation.tables).to.deep.equal([{ catalog: 'memory', schema: 'default', table: 'people' }]);
    });

    /** Every table guarded: its columns unknown here, a filter that marks the read. */
    const everyTable: TranslationContext = {
      catalog: 'tpch',
      schema: 'tiny',
      databaseOf: (c) => c,
      guardedRead: () => ({ columns: [], excluded: [], masks: [], filter: { expression: parseExpression('true'), text: 'true', context: base } }),
    };
    /** Whether every table the statement reads was printed as a guarded read (each names its table once). */
    const everyReadGuarded = (sql: string): boolean => {
      const tree = parseStatement(sql);
      if (tree.type !== 'Query' && tree.type !== 'Explain') return true;
      let translation;
      try {
        translation = translateStatement(tree, sql, everyTable);
      } catch (err) {
        expect(err, sql).to.be.instanceOf(VivaceError);
        return true;
      }
      guardedReads += translation.guarded.length;
      return translation.tables.length === translation.guarded.length;
    };
    let guardedReads = 0;

    it('guards every table read of every query of the corpus, and of generated ones', () => {
      for (const sql of QUERY_CORPUS) expect(everyReadGuarded(sql), sql).to.equal(true);
      expect(guardedReads, 'the corpus reads tables').to.be.greaterThan(40);
      fc.assert(fc.property(statement, (sql) => everyReadGuarded(sql)), { numRuns: 300 });
    });

    it('keeps an alias on the subquery, and guards every read of the table in the statement', () => {
      const sql = 'SELECT a.ssn FROM people a JOIN people b ON a.id = b.id UNION ALL SELECT ssn FROM memory.default.people';
      const text = translateStatement(parseStatement(sql), sql, ctx).sql;
      expect(text.split('FROM "memory"."default"."people" WHERE').length - 1).to.equal(3);
      expect(text).to.include(') AS "a"');
      expect(text).not.to.match(/JOIN "memory"/);
    });
  });
});

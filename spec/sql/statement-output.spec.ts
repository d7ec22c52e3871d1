// Statement kinds and Trino's update types from the tree; the query inside INSERT and CTAS located.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/parser.js';
import { statementOutput } from '../../lib/sql/statement-output.js';
import { admitStatement } from '../../lib/sql/statement-gate.js';
import { classicAttacks, expectLinear } from '../support/linear-time.js';

const output = (sql: string) => statementOutput(parseStatement(sql));

describe('statementOutput', () => {
  it('reports rows for queries and Trino\'s update types for the rest', () => {
    expect(output('SELECT 1')).to.deep.equal({ kind: 'rows' });
    expect(output('EXPLAIN SELECT 1')).to.deep.equal({ kind: 'rows' });
    expect(output('create table if not exists t (a bigint)')).to.deep.equal({ kind: 'ddl', updateType: 'CREATE TABLE' });
    expect(output('DROP TABLE IF EXISTS t')).to.deep.equal({ kind: 'ddl', updateType: 'DROP TABLE' });
    expect(output('/* c */ CREATE -- x\n SCHEMA s')).to.deep.equal({ kind: 'ddl', updateType: 'CREATE SCHEMA' });
    expect(output('ALTER TABLE t ADD COLUMN c bigint')).to.deep.equal({ kind: 'ddl', updateType: 'ADD COLUMN' });
    expect(output('ALTER TABLE t RENAME TO u')).to.deep.equal({ kind: 'ddl', updateType: 'RENAME TABLE' });
    expect(output("COMMENT ON TABLE t IS 'x'")).to.deep.equal({ kind: 'ddl', updateType: 'COMMENT' });
    expect(output('INSERT INTO t VALUES (1)')).to.deep.equal({ kind: 'count', updateType: 'INSERT' });
    expect(output('DELETE FROM t WHERE a = 1')).to.deep.equal({ kind: 'count', updateType: 'DELETE' });
  });

  it('counts rows of CREATE TABLE ... AS, with or without a column list and quoted names', () => {
    for (const sql of [
      'CREATE TABLE t AS SELECT 1 AS a',
      'create table if not exists memory."default"."a ""b""" (x, y) as select 1, 2',
      'CREATE TABLE t (a, b) AS (SELECT 1, 2)',
      'CREATE TABLE t AS SELECT 1 AS a WITH NO DATA',
    ]) {
      expect(output(sql), sql).to.deep.equal({ kind: 'count', updateType: 'CREATE TABLE' });
    }
    expect(output('CREATE TABLE t (a bigint, b varchar(3))').kind).to.equal('ddl');
  });

  it('answers at once for the long table names that froze the server, and stays linear', () => {
    const name = 'a_table_name_of_forty_characters_or_more_'.repeat(50);
    const started = performance.now();
    expect(output(`CREATE TABLE memory.default.${name} (a bigint)`).kind).to.equal('ddl');
    expect(performance.now() - started).to.be.below(100);
    const context = { catalogs: new Set(['memory']), writableCatalogs: new Set(['memory']), protectedSchemas: new Set<string>() };
    expectLinear('parse, gate and classify', (t) => {
      const sql = `CREATE TABLE ${t}`;
      const statement = parseStatement(sql);
      admitStatement(statement, sql, context);
      statementOutput(statement);
    }, classicAttacks);
  });
});

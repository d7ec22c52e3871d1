// Statement kinds and update types from tokens; linear in the text however it is built.
import { expect } from 'chai';
import fc from 'fast-check';
import { StatementType } from '@duckdb/node-api';
import { classifyStatement, embeddedQueryStart } from '../../lib/engine/statement-kind.js';
import { classicAttacks, expectLinear, hostileText } from '../support/linear-time.js';

describe('classifyStatement', () => {
  it('reports Presto update types, skipping modifiers', () => {
    expect(classifyStatement(StatementType.CREATE, 'create or replace table t (a bigint)')).to.deep.equal({ kind: 'ddl', updateType: 'CREATE TABLE' });
    expect(classifyStatement(StatementType.DROP, 'DROP TABLE IF EXISTS t')).to.deep.equal({ kind: 'ddl', updateType: 'DROP TABLE' });
    expect(classifyStatement(StatementType.CREATE, '/* c */ CREATE -- x\n SCHEMA s')).to.deep.equal({ kind: 'ddl', updateType: 'CREATE SCHEMA' });
    expect(classifyStatement(StatementType.INSERT, 'INSERT INTO t VALUES (1)')).to.deep.equal({ kind: 'count', updateType: 'INSERT' });
  });

  it('counts rows of CREATE TABLE ... AS, with or without a column list and quoted names', () => {
    for (const sql of [
      'CREATE TABLE t AS SELECT 1',
      'create table if not exists memory."default"."a ""b""" (x, y) as select 1, 2',
      'CREATE TABLE t (a, b) AS (SELECT 1, 2)',
    ]) {
      expect(classifyStatement(StatementType.CREATE, sql), sql).to.deep.equal({ kind: 'count', updateType: 'CREATE TABLE' });
    }
    expect(classifyStatement(StatementType.CREATE, 'CREATE TABLE t (a bigint, b varchar(3))').kind).to.equal('ddl');
    expect(classifyStatement(StatementType.CREATE, "CREATE TABLE t (a varchar DEFAULT 'as')").kind).to.equal('ddl');
  });

  it('answers at once for the long table names that froze the server', () => {
    const name = 'a_table_name_of_forty_characters_or_more_'.repeat(50);
    const started = performance.now();
    expect(classifyStatement(StatementType.CREATE, `CREATE TABLE memory.default.${name} (a bigint)`).kind).to.equal('ddl');
    expect(performance.now() - started).to.be.below(100);
  });

  it('finds the query of INSERT and CREATE TABLE ... AS', () => {
    const query = (sql: string) => {
      const at = embeddedQueryStart(sql);
      return at === undefined ? undefined : sql.slice(at);
    };
    expect(query('INSERT INTO memory."default".t (a, b) SELECT 1, 2')).to.equal('SELECT 1, 2');
    expect(query('insert or replace into t values (1)')).to.equal('values (1)');
    expect(query('CREATE TABLE IF NOT EXISTS "a.b" (x) AS (SELECT 1)')).to.equal('(SELECT 1)');
    expect(query('CREATE TABLE t (a bigint)')).to.equal(undefined);
    expect(query('DELETE FROM t')).to.equal(undefined);
    expectLinear('embeddedQueryStart', (t) => embeddedQueryStart(`INSERT INTO ${t}`), classicAttacks);
  });

  it('is linear in the text for hostile input', () => {
    expectLinear('classifyStatement', (t) => classifyStatement(StatementType.CREATE, `CREATE TABLE ${t}`), classicAttacks);
    fc.assert(
      fc.property(hostileText(2_000), (t) => {
        classifyStatement(StatementType.CREATE, `CREATE TABLE ${t}`);
      }),
      { numRuns: 50 },
    );
  });
});

// The cache of admitted queries: queries only, per session catalog and schema, bounded.
import { expect } from 'chai';
import { AdmittedQueries } from '../../lib/engine/admitted-queries.js';
import { parseStatement } from '../../lib/sql/parser.js';

describe('AdmittedQueries', () => {
  it('keeps queries by text, catalog and schema, and nothing else', () => {
    const cache = new AdmittedQueries();
    const key = AdmittedQueries.key('SELECT 1', 'memory', 'default');
    cache.remember(key, parseStatement('SELECT 1'));
    expect(cache.get(key)?.type).to.equal('Query');
    expect(cache.get(AdmittedQueries.key('SELECT 1', 'tpch', 'default'))).to.equal(undefined);
    expect(cache.get(AdmittedQueries.key('SELECT 1', 'memory', undefined))).to.equal(undefined);
    // A statement whose admission depends on more than the key (EXECUTE reads the session's prepared statements).
    const execute = AdmittedQueries.key('EXECUTE p', 'memory', 'default');
    cache.remember(execute, parseStatement('EXECUTE p'));
    expect(cache.get(execute)).to.equal(undefined);
  });

  it('drops the oldest past its capacity and keeps no long text', () => {
    const cache = new AdmittedQueries(2, 100);
    for (const n of [1, 2, 3]) cache.remember(AdmittedQueries.key(`SELECT ${n}`, 'memory', 'default'), parseStatement(`SELECT ${n}`));
    expect(cache.get(AdmittedQueries.key('SELECT 1', 'memory', 'default'))).to.equal(undefined);
    expect(cache.get(AdmittedQueries.key('SELECT 3', 'memory', 'default'))?.type).to.equal('Query');
    const long = `SELECT ${'1 + '.repeat(50)}1`;
    cache.remember(AdmittedQueries.key(long, 'memory', 'default'), parseStatement(long));
    expect(cache.get(AdmittedQueries.key(long, 'memory', 'default'))).to.equal(undefined);
  });
});

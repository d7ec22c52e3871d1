// Where a statement runs, decided on its tree: and whether the coordinator's system.runtime snapshot goes with it.
import { expect } from 'chai';
import sinon from 'sinon';
import { routeOf as routeIn, routeReading } from '../../lib/cluster/statement-route.js';
import { builtInConnectors } from './cluster-harness.js';

/** Routes in the built-in catalogs (tpch shared, memory and system not). */
const routeOf = (sql: string, s: Parameters<typeof routeIn>[1]) => routeIn(sql, s, builtInConnectors().shared);

const session = { catalog: 'tpch', schema: 'tiny' };

describe('cluster: statement route', () => {
  afterEach(() => sinon.restore());

  it('reads the names of a text once; each query resolves them in its own session', () => {
    const walks = sinon.spy(routeReading, 'tablesNamed');
    const sql = 'SELECT * FROM nation /* route read once */';
    expect(routeOf(sql, session).target).to.equal('any');
    expect(routeOf(sql, { catalog: 'memory', schema: 'default' }).target).to.equal('memory');
    expect(routeOf(sql, { catalog: 'system', schema: 'runtime' })).to.deep.include({ target: 'any', readsSystemRuntime: true });
    expect(walks.callCount).to.equal(1);
  });

  it('a read-only tpch or system.runtime query runs anywhere; writes, memory and EXECUTE go to the memory worker', () => {
    expect(routeOf('SELECT * FROM nation', session)).to.deep.equal({ target: 'any', readsSystemRuntime: false, readsCompletedQueries: false, tableFree: false });
    expect(routeOf('SELECT query FROM system.runtime.queries', session)).to.deep.include({ target: 'any', readsSystemRuntime: true });
    expect(routeOf('SELECT * FROM memory.default.t', session).target).to.equal('memory');
    expect(routeOf('EXECUTE IMMEDIATE \'SELECT 1\'', session).target).to.equal('memory');
  });

  it('EXECUTE and EXECUTE IMMEDIATE of a statement reading system.runtime take the snapshot along', () => {
    // The Trino Python client reads back its own queries with a parameter: EXECUTE IMMEDIATE '... WHERE user = ?' USING 'u'.
    const immediate = "EXECUTE IMMEDIATE 'SELECT query FROM system.runtime.queries WHERE user = ?' USING 'u'";
    expect(routeOf(immediate, session)).to.deep.include({ target: 'memory', readsSystemRuntime: true });
    const prepared = { ...session, preparedStatements: { Q: 'SELECT count(*) FROM system.runtime.queries' } };
    expect(routeOf('EXECUTE q', prepared).readsSystemRuntime).to.equal(true);
    expect(routeOf('EXECUTE other', prepared).readsSystemRuntime).to.equal(false);
    expect(routeOf("EXECUTE IMMEDIATE 'SELEC nothing'", session).readsSystemRuntime).to.equal(false);
  });

  it('system.runtime.completed_queries is read by the tree, whatever the text says: quoted, cased, through EXECUTE, not in a comment or a string', () => {
    const reads = (sql: string, s: Parameters<typeof routeIn>[1] = session) => routeOf(sql, s).readsCompletedQueries;
    expect(reads('SELECT * FROM system.runtime.completed_queries')).to.equal(true);
    expect(reads('SELECT * FROM "SYSTEM"."Runtime"."COMPLETED_QUERIES"')).to.equal(true);
    expect(reads('SELECT * FROM runtime.completed_queries', { catalog: 'system', schema: 'information_schema' })).to.equal(true);
    expect(reads('SELECT * FROM completed_queries', { catalog: 'system', schema: 'runtime' })).to.equal(true);
    expect(reads('EXECUTE q', { ...session, preparedStatements: { q: 'SELECT count(*) FROM system.runtime.completed_queries' } })).to.equal(true);
    expect(reads("EXECUTE IMMEDIATE 'SELECT 1 FROM system.runtime.completed_queries'")).to.equal(true);
    // Named, but not read: a comment, a string, another schema's table of that name, the runtime queries.
    expect(reads('SELECT 1 -- system.runtime.completed_queries')).to.equal(false);
    expect(reads("SELECT 'system.runtime.completed_queries'")).to.equal(false);
    expect(reads('SELECT * FROM memory.default.completed_queries')).to.equal(false);
    expect(reads('SELECT * FROM system.runtime.queries')).to.equal(false);
  });
});

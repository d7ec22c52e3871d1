// Where a statement runs, decided on its tree: and whether the coordinator's system.runtime snapshot goes with it.
import { expect } from 'chai';
import { routeOf as routeIn } from '../../lib/cluster/statement-route.js';
import { builtInConnectors } from './cluster-harness.js';

/** Routes in the built-in catalogs (tpch shared, memory and system not). */
const routeOf = (sql: string, s: Parameters<typeof routeIn>[1]) => routeIn(sql, s, builtInConnectors().shared);

const session = { catalog: 'tpch', schema: 'tiny' };

describe('cluster: statement route', () => {
  it('a read-only tpch or system.runtime query runs anywhere; writes, memory and EXECUTE go to the memory worker', () => {
    expect(routeOf('SELECT * FROM nation', session)).to.deep.equal({ target: 'any', readsSystemRuntime: false, tableFree: false });
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
});

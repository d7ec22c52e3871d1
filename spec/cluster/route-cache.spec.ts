// The coordinator's routes by statement text and session (lib/cluster/route-cache.ts): a repeated statement
// is routed from the cache, and whatever the route reads of the session keys it apart.
import { expect } from 'chai';
import { RouteCache } from '../../lib/cluster/route-cache.js';
import { routeOf } from '../../lib/cluster/statement-route.js';

const SHARED: ReadonlySet<string> = new Set(['tpch']);
const at = (catalog: string | undefined, schema: string | undefined, preparedStatements: Record<string, string> = {}) => ({ catalog, schema, preparedStatements });

describe('RouteCache', () => {
  it('routes a repeated statement once, with the route routeOf gives', () => {
    const cache = new RouteCache();
    for (let i = 0; i < 4; i++) expect(cache.routeOf('SELECT 1', at('memory', 'default'), SHARED)).to.deep.equal(routeOf('SELECT 1', at('memory', 'default'), SHARED));
    expect(cache.computed).to.equal(1);
    expect(cache.routeOf('SELECT 1', at('memory', 'default'), SHARED).tableFree).to.equal(true);
  });

  it('keys the route by the session catalog and schema: a bare table name resolves against them', () => {
    const cache = new RouteCache();
    expect(cache.routeOf('SELECT * FROM nation', at('tpch', 'tiny'), SHARED).target).to.equal('any');
    expect(cache.routeOf('SELECT * FROM nation', at('memory', 'default'), SHARED).target).to.equal('memory');
    expect(cache.routeOf('SELECT * FROM nation', at('tpch', undefined), SHARED)).to.deep.equal(routeOf('SELECT * FROM nation', at('tpch', undefined), SHARED));
    expect(cache.computed).to.equal(3);
  });

  it('keys EXECUTE by the session\'s prepared statements: what it runs decides the route', () => {
    const cache = new RouteCache();
    const runtime = cache.routeOf('EXECUTE q', at('memory', 'default', { q: 'SELECT * FROM system.runtime.nodes' }), SHARED);
    const plain = cache.routeOf('EXECUTE q', at('memory', 'default', { q: 'SELECT 1' }), SHARED);
    expect([runtime.readsSystemRuntime, plain.readsSystemRuntime]).to.deep.equal([true, false]);
    expect(cache.routeOf('EXECUTE q', at('memory', 'default', { q: 'SELECT 1' }), SHARED)).to.equal(plain);
    expect(cache.computed).to.equal(2);
  });

  it('keys the route by the set of shared catalogs (another set: routed again)', () => {
    const cache = new RouteCache();
    expect(cache.routeOf('SELECT * FROM lake.s.t', at('memory', 'default'), SHARED).target).to.equal('memory');
    expect(cache.routeOf('SELECT * FROM lake.s.t', at('memory', 'default'), new Set(['tpch', 'lake'])).target).to.equal('any');
    expect(cache.computed).to.equal(2);
  });

  it('holds at most its capacity, oldest out, and routes long texts every time', () => {
    const cache = new RouteCache(2, 40);
    for (const sql of ['SELECT 1', 'SELECT 2', 'SELECT 3', 'SELECT 1']) cache.routeOf(sql, at('memory', 'default'), SHARED);
    expect(cache.computed).to.equal(4);
    const long = `SELECT 1 AS ${'x'.repeat(40)}`;
    cache.routeOf(long, at('memory', 'default'), SHARED);
    cache.routeOf(long, at('memory', 'default'), SHARED);
    expect(cache.computed).to.equal(6);
  });
});

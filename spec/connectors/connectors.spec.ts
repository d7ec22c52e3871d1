// The connectors of a catalog set (connectors.ts): the planner and the statement route ask a catalog's
// connector, never its name, so a tpch catalog named `tiny` splits and routes as `tpch` does, and a
// memory catalog named `tpch` neither splits nor runs anywhere.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectorsOf } from '../../lib/connectors/connectors.js';
import { defaultHiveCatalog } from '../../lib/connectors/hive/default-lake.js';
import type { CatalogConfig } from '../../lib/connectors/catalog.types.js';
import { stagedQuery } from '../../lib/cluster/staged-query.js';
import { routeOf } from '../../lib/cluster/statement-route.js';
import { session } from '../cluster/cluster-harness.js';
import { generatedTiny } from '../support/generated-tiny.js';

describe('connectors: the planner and the route ask a catalog\'s connector', function () {
  this.timeout(60_000);
  let tpchDirectory: string;
  let lakeDirectory: string;
  const q6 = (catalog: string) => `SELECT sum(extendedprice * discount) FROM ${catalog}.tiny.lineitem WHERE quantity < 24`;

  before(async () => {
    ({ directory: tpchDirectory } = await generatedTiny());
    lakeDirectory = mkdtempSync(join(tmpdir(), 'vivace-connectors-'));
  });
  after(() => rmSync(lakeDirectory, { recursive: true, force: true }));

  const catalogSet = (tpchName: string, memoryName: string): CatalogConfig[] => [
    { name: tpchName, connector: 'tpch', directory: tpchDirectory },
    { name: memoryName, connector: 'memory' },
    { name: 'system', connector: 'system' },
    defaultHiveCatalog(lakeDirectory),
  ];

  it('tells which catalogs split and which every worker reads alike, by connector', () => {
    const connectors = connectorsOf(catalogSet('tiny', 'scratch'));
    expect([...connectors.splittable].sort()).to.deep.equal(['lake', 'tiny']);
    expect([...connectors.shared].sort()).to.deep.equal(['lake', 'tiny']);
    expect(connectors.of('tiny')?.connector).to.equal('tpch');
    expect(connectors.of('scratch')?.connector).to.equal('memory');
    expect(connectors.of('tpch')).to.equal(undefined);
  });

  it('splits a tpch catalog named tiny exactly as one named tpch: the same stages over the same parts', () => {
    const asTpch = stagedQuery(q6('tpch'), session(), connectorsOf(catalogSet('tpch', 'memory'), { tpchMinRows: 0 }));
    const asTiny = stagedQuery(q6('tiny'), session(), connectorsOf(catalogSet('tiny', 'scratch'), { tpchMinRows: 0 }));
    expect(asTpch).to.not.equal(undefined);
    expect(asTiny?.plan.fragments[1]?.scan?.table).to.deep.equal({ catalog: 'tiny', schema: 'tiny', table: 'lineitem' });
    expect(asTiny?.splits.get(1)).to.deep.equal(asTpch?.splits.get(1));
    // The session's catalog resolves an unqualified table the same way.
    const unqualified = stagedQuery('SELECT count(*) FROM lineitem', session({ catalog: 'tiny', schema: 'tiny' }), connectorsOf(catalogSet('tiny', 'scratch'), { tpchMinRows: 0 }));
    expect(unqualified?.splits.get(1)).to.deep.equal(asTpch?.splits.get(1));
  });

  it('leaves a memory catalog named tpch to one task on the memory worker, and a catalog not in the set too', () => {
    const connectors = connectorsOf(catalogSet('tiny', 'tpch'), { tpchMinRows: 0 });
    expect(stagedQuery(q6('tpch'), session(), connectors)).to.equal(undefined);
    expect(routeOf(q6('tpch'), session(), connectors.shared).target).to.equal('memory');
    expect(stagedQuery(q6('nowhere'), session(), connectors)).to.equal(undefined);
    expect(routeOf(q6('nowhere'), session(), connectors.shared).target).to.equal('memory');
  });

  it('routes a read-only query over tiny or the lake to any worker, one over the memory catalog to its worker', () => {
    const shared = connectorsOf(catalogSet('tiny', 'scratch')).shared;
    expect(routeOf('SELECT * FROM tiny.tiny.nation', session(), shared).target).to.equal('any');
    expect(routeOf('SELECT * FROM nation', session({ catalog: 'tiny', schema: 'tiny' }), shared).target).to.equal('any');
    expect(routeOf('SELECT * FROM lake.s.t JOIN tiny.tiny.nation ON true', session(), shared).target).to.equal('any');
    expect(routeOf('SELECT * FROM scratch.default.t', session(), shared).target).to.equal('memory');
    expect(routeOf('INSERT INTO lake.s.t SELECT * FROM tiny.tiny.nation', session(), shared).target).to.equal('memory');
  });
});

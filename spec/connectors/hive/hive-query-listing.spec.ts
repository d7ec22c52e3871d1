// One listing of a lake table per query on the coordinator (QueryListings): the planner's layout and the
// scheduler's splits of a join over two lake tables come from one HiveCatalog.readable call per table, a
// scan's partition predicate pruning that listing in memory to the splits a listing of its own would give;
// the next query lists again and sees a file written in between (no cache lives past a query).
import { expect } from 'chai';
import sinon from 'sinon';
import { join } from 'node:path';
import { HiveCatalog } from '../../../lib/connectors/hive/hive-catalog.js';
import { connectorsOf } from '../../../lib/connectors/connectors.js';
import { stagedQuery } from '../../../lib/cluster/staged-query.js';
import { MAX_STAGE_ITEMS } from '../../../lib/cluster/task-protocol.js';
import { parseExpression } from '../../../lib/sql/index.js';
import { session } from '../../cluster/cluster-harness.js';
import { hiveFixture, type HiveFixture } from './hive-helpers.js';

describe('hive connector: one listing per query for the plan and its splits', function () {
  this.timeout(60_000);
  let f: HiveFixture;
  before(async () => {
    f = await hiveFixture();
    await f.run('CREATE SCHEMA lake.s');
    await f.run("CREATE TABLE lake.s.facts WITH (partitioned_by = ARRAY['k']) AS SELECT x, v, k FROM (VALUES (1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b'), (1, 40, 'c')) AS t (x, v, k)");
    await f.run("CREATE TABLE lake.s.dims AS SELECT x, y FROM (VALUES (1, 'one'), (2, 'two'), (3, 'three')) AS t (x, y)");
  });
  after(() => f.close());
  afterEach(() => sinon.restore());

  const SQL = "SELECT d.y, sum(f.v) FROM facts f JOIN dims d ON f.x = d.x WHERE f.k = 'a' GROUP BY d.y";
  const lake = session({ catalog: 'lake', schema: 's' });

  it('lists each table once for a join query: its layout and its scan\'s splits, pruned by the partition predicate as a listing of its own', () => {
    const connectors = connectorsOf([f.config], { lakeMinBytes: 0 });
    const readable = sinon.spy(HiveCatalog.prototype, 'readable');
    const staged = stagedQuery(SQL, lake, connectors)!;
    expect(staged, 'a distributed plan').to.not.equal(undefined);
    expect(readable.callCount, 'listings').to.equal(2);
    expect(readable.getCalls().map((c) => c.args[0].table).sort()).to.deep.equal(['dims', 'facts']);
    const scans = staged.plan.fragments.filter((x) => x.scan);
    expect(scans.map((x) => x.scan!.table.table).sort()).to.deep.equal(['dims', 'facts']);
    readable.resetHistory();
    // The same splits as each scan listing on its own (partitions pruned before listing).
    const connector = connectors.of('lake')!;
    for (const fragment of scans) {
      expect(staged.splits.get(fragment.id), fragment.scan!.table.table).to.deep.equal(connector.scanSplits!(fragment.scan!.table, fragment.scan!.where, MAX_STAGE_ITEMS));
    }
    const facts = scans.find((x) => x.scan!.table.table === 'facts')!;
    expect(staged.splits.get(facts.id)!.names.map((n) => n.split('/')[0])).to.deep.equal(['k=a']);
    // A scan's WHERE on another partition, and on "$path", prunes the same listing in memory.
    for (const where of ["k IN ('b', 'c')", "\"$path\" LIKE '%k=c%'"]) {
      const listings = new Map<string, unknown>();
      expect(connector.tableLayout!(facts.scan!.table, listings)!.splits).to.equal(true);
      const alone = connector.scanSplits!(facts.scan!.table, parseExpression(where), MAX_STAGE_ITEMS)!;
      expect(connector.scanSplits!(facts.scan!.table, parseExpression(where), MAX_STAGE_ITEMS, listings), where).to.deep.equal(alone);
      expect(alone.names.length, where).to.be.greaterThan(0);
    }
  });

  it('lists again for the next query: a file written in between is among its splits', async () => {
    const connectors = connectorsOf([f.config], { lakeMinBytes: 0 });
    const before = stagedQuery(SQL, lake, connectors)!;
    const dimsOf = (s: NonNullable<typeof before>) => s.splits.get(s.plan.fragments.find((x) => x.scan?.table.table === 'dims')!.id)!.names;
    expect(dimsOf(before)).to.have.length(1);
    await f.direct(`COPY (SELECT 4 AS x, 'four' AS y) TO '${join(f.root, 's', 'dims', 'by-hand.parquet')}' (FORMAT parquet)`);
    const readable = sinon.spy(HiveCatalog.prototype, 'readable');
    const after = stagedQuery(SQL, lake, connectors)!;
    expect(readable.callCount).to.equal(2);
    expect(dimsOf(after)).to.have.length(2);
    expect(dimsOf(after)).to.include('by-hand.parquet');
  });
});

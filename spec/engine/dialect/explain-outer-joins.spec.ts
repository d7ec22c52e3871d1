// EXPLAIN (TYPE DISTRIBUTED) of the plans outer-joins.ts and derived-relations.ts make: Trino's join node
// names for outer joins (LeftJoin, RightJoin, FullJoin) with their distribution, and TPC-H Q13 as Trino
// prints it: the outer join, the inner aggregation and the outer partial in HASH fragments.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import { distributedPlanFor } from '../../../lib/planner/statement-plans.js';
import { TPCH_QUERIES } from '../../../lib/tpch/queries/tpch-queries.js';
import type { Session } from '../../../lib/protocol/types.js';
import { generatedTiny } from '../../support/generated-tiny.js';
import { tinyMetadata } from '../../planner/fragment-runner.js';
import { runSql, testSession } from '../engine-helpers.js';

const tiny = (properties: Record<string, string> = {}) => testSession({ catalog: 'tpch', schema: 'tiny', properties });

describe('dialect: EXPLAIN of outer joins and grouped derived tables in fragments', function () {
  this.timeout(60_000);
  let engine: DuckDbEngine;
  let dir: string;

  before(async () => {
    const { directory } = await generatedTiny();
    dir = mkdtempSync(join(tmpdir(), 'vivace-explain-outer-'));
    const metadata = tinyMetadata((t) => t === 'lineitem' || t === 'orders' || t === 'customer');
    engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections: 1, tpch: { directory }, distributedPlan: (sql: string, session: Session) => distributedPlanFor(sql, session, metadata) });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const explain = async (sql: string, session: Session) => String((await runSql(engine, `EXPLAIN (TYPE DISTRIBUTED) ${sql}`, session)).rows[0]![0]);
  const fragments = (text: string) => text.match(/^Fragment \d+ \[[A-Z]+\]$/gm) ?? [];

  it('names a partitioned outer join as Trino does, whatever side DuckDB builds on', async () => {
    for (const [sql, names] of [
      ['SELECT c.custkey, o.orderkey FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey', ['LeftJoin', 'RightJoin']],
      ['SELECT c.custkey, o.orderkey FROM orders o RIGHT JOIN customer c ON c.custkey = o.custkey', ['LeftJoin', 'RightJoin']],
      ['SELECT c.custkey, o.orderkey FROM orders o FULL JOIN customer c ON c.custkey = o.custkey', ['FullJoin']],
    ] as const) {
      const text = await explain(sql, tiny({ join_distribution_type: 'PARTITIONED' }));
      expect(fragments(text), sql).to.include('Fragment 1 [HASH]');
      expect(names.some((n) => text.includes(`${n}[`)), `${sql}\n${text}`).to.equal(true);
      expect(text, sql).to.include('distribution = PARTITIONED');
    }
    // A LEFT join broadcasts its build side into the probe side's source fragment.
    const broadcast = await explain('SELECT c.custkey, o.orderkey FROM customer c LEFT JOIN orders o ON c.custkey = o.custkey', tiny({ join_distribution_type: 'BROADCAST' }));
    expect(broadcast).to.include('Output partitioning: BROADCAST []');
    expect(broadcast).to.match(/(LeftJoin|RightJoin)\[/);
  });

  it('prints TPC-H Q15 with its WITH query\'s rows in one fragment read by two', async () => {
    const text = await explain(TPCH_QUERIES.find((q) => q.number === 15)!.sql, tiny());
    expect(fragments(text)).to.include('Fragment 0 [SINGLE]');
    const remote = [...text.matchAll(/RemoteSource\[sourceFragmentIds = \[(\d+)\]\]/g)].map((m) => m[1]);
    // One fragment is read by two RemoteSources: the join with supplier's and the max's.
    expect(remote.filter((id) => remote.indexOf(id) !== remote.lastIndexOf(id)), text).to.have.length(2);
    expect(text.match(/TableScan\[table = tpch:tiny:lineitem\]|ScanFilter\[table = tpch:tiny:lineitem/g), text).to.have.length(1);
  });

  it('prints TPC-H Q13 with its outer join and both aggregations in HASH fragments', async () => {
    const text = await explain(TPCH_QUERIES.find((q) => q.number === 13)!.sql, tiny());
    const headers = fragments(text);
    expect(headers[0]).to.equal('Fragment 0 [SINGLE]');
    expect(headers.filter((h) => h.endsWith('[HASH]')).length, text).to.be.at.least(2);
    expect(text).to.match(/(LeftJoin|RightJoin)\[/);
    // orders with the pushed NOT LIKE of the ON clause (a ScanFilter), customer whole.
    expect(text).to.include('TableScan[table = tpch:tiny:customer]').and.include('ScanFilter[table = tpch:tiny:orders, filterPredicate');
    expect(text.match(/Output partitioning: HASH \[/g)?.length, text).to.be.at.least(2);
  });
});

// `vivace serve --workers 1` as real processes: EXPLAIN of a join is answered by the worker, which plans
// the statement's fragments from its own connectors (the hook lib/cli/worker-command.ts gives its engine)
// with the cluster's split threshold, and prints each of them over HTTP as Trino does.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { runStatement } from '../support/http.js';
import { healthy } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const headers = { 'X-Trino-User': 'alice', 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' };
const JOIN = 'SELECT o.orderpriority, count(*) AS n FROM orders o JOIN lineitem l ON l.orderkey = o.orderkey GROUP BY o.orderpriority';

describe('e2e: EXPLAIN of a distributed plan through a worker process', function () {
  this.timeout(120_000);
  let dir: string;
  let cluster: ClusterProcess;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-explain-'));
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    // Tables of 10,000 rows or more split (lineitem, orders at tiny): the worker plans with the same threshold.
    cluster = await startClusterProcess({ workers: 1, dataDirectory: dir, properties: { 'shutdown.grace-period': '1s', 'vivace.distributed-tpch-min-rows': '10000' }, captureOutput: true });
    await until('the worker listens and is not failed', 60_000, () => healthy(cluster, 1), 50);
  });
  after(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const explain = async (sql: string, extra: Record<string, string> = {}) => {
    const result = await runStatement(cluster.url, sql, { ...headers, ...extra });
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expect(result.rows).to.have.length(1);
    return String(result.rows[0]![0]);
  };

  it('prints the root, the probe side over its splits and the broadcast build side, or both sides hashed when the session asks', async () => {
    // Every fragment but the root is read by one RemoteSource of its consumer.
    const shape = (text: string) => {
      const headers = text.match(/^Fragment \d+ \[[A-Z]+\]$/gm) ?? [];
      expect(headers[0]).to.equal('Fragment 0 [SINGLE]');
      expect(headers.length).to.be.at.least(3);
      expect(text.match(/RemoteSource\[sourceFragmentIds = \[\d+\]\]/g)).to.have.length(headers.length - 1);
      return headers;
    };
    const broadcast = await explain(`EXPLAIN ${JOIN}`, { 'X-Trino-Session': 'join_distribution_type=BROADCAST' });
    shape(broadcast);
    expect(broadcast.match(/Output partitioning: BROADCAST \[\]/g)).to.have.length(1);
    expect(broadcast).to.include('TableScan[table = tpch:tiny:orders]').and.include('TableScan[table = tpch:tiny:lineitem]').and.include('distribution = REPLICATED');
    const partitioned = await explain(`EXPLAIN (TYPE DISTRIBUTED) ${JOIN}`, { 'X-Trino-Session': 'join_distribution_type=PARTITIONED' });
    expect(shape(partitioned)).to.include.members(['Fragment 1 [HASH]']);
    expect(partitioned.match(/Output partitioning: HASH \[/g)?.length).to.be.at.least(2);
    expect(partitioned).to.include('distribution = PARTITIONED');
    // A query over one table prints its one fragment, as before.
    expect((await explain('EXPLAIN SELECT count(*) FROM lineitem')).match(/^Fragment \d+/gm)).to.deep.equal(['Fragment 0']);
  });
});

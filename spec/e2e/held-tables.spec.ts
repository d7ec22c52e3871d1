// A memory table joined with tpch tiny lineitem (and with a lake copy of it) on `vivace serve --workers 2` as real processes: the
// memory table is read once, whole, in a fragment pinned to worker-0 (the memory catalog's holder), its
// output BROADCAST into the tasks reading lineitem over its splits on both workers, where the join runs
// (held-relations.ts); the root runs where the memory catalog is (it plans the user's statement there). The answer equals one task's (the same statement with
// the memory table's rows inlined, in DuckDB in process); /v1/query/{id} shows the stages and their tasks
// on both workers. Access rules still hold: a user the rules deny the memory table is refused, and sees
// no rows of it, nor the other user's query in /v1/query; a user with a column mask on it runs one task.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { defaultConfig } from '../../lib/config.js';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { request, runStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runOn, session } from '../cluster/cluster-harness.js';
import { expectSameRows } from '../cluster/same-rows.js';
import { healthy, stopTpchCluster, type TpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const ALICE = { 'X-Trino-User': 'alice' };
const BOB = { 'X-Trino-User': 'bob' };

const PRIO = 'SELECT n, CASE WHEN n % 2 = 0 THEN \'even\' ELSE \'odd\' END AS label FROM (VALUES 1, 2, 3, 4) AS t(n)';
const JOIN = `SELECT p.label, count(*) AS lines, sum(l.quantity) AS qty FROM memory.default.prio p JOIN tpch.tiny.lineitem l ON l.linenumber = p.n
  WHERE l.shipdate < DATE '1995-01-01' GROUP BY p.label ORDER BY 1`;

const LAKE_ITEMS = 'CREATE TABLE lake.s.items WITH (partitioned_by = ARRAY[\'month\']) AS SELECT linenumber, quantity, month(shipdate) AS month FROM tpch.tiny.lineitem';

interface StageJson { stageId: string; nodes: number; subStages: StageJson[]; tasks?: { taskStatus: { nodeId: string; state: string } }[] }

describe('e2e: a memory table joined with tpch splits, the memory side gathered from its worker', function () {
  this.timeout(240_000);
  const started: Partial<TpchCluster> = {};
  let cluster: ClusterProcess;
  let local: DuckDbEngine;

  before(async function () {
    if (!existsSync(join(SHARED_TPCH, 'tiny', 'manifest.json'))) this.skip();
    // startTpchCluster's cluster with access rules: bob may not read memory's tables.
    const dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-held-'));
    started.dir = dir;
    symlinkSync(SHARED_TPCH, join(dir, 'tpch'));
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({
      tables: [
        { user: 'bob', catalog: 'memory', privileges: [] },
        { user: 'carol', catalog: 'memory', table: 'prio', privileges: ['SELECT'], columns: [{ name: 'label', mask: '\'masked\'' }] },
        { privileges: ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP'] },
      ],
      system_information: [{ user: 'alice', allow: ['read', 'write'] }],
      // Everyone runs queries and sees only their own (Trino's query rules: `view` not given).
      queries: [{ allow: ['execute'] }],
    }));
    // Catalogs from files: tpch, memory, and a lake whose table splits by its partitions' files.
    const catalogs = join(dir, 'catalog');
    mkdirSync(catalogs);
    mkdirSync(join(dir, 'lake'));
    writeFileSync(join(catalogs, 'tpch.properties'), 'connector.name=tpch\n');
    writeFileSync(join(catalogs, 'memory.properties'), 'connector.name=memory\n');
    writeFileSync(join(catalogs, 'lake.properties'), `connector.name=hive\nhive.metastore=file\nhive.metastore.catalog.dir=local:///\nfs.native-local.enabled=true\nlocal.location=${join(dir, 'lake')}\n`);
    started.cluster = await startClusterProcess({
      workers: 2, dataDirectory: dir, captureOutput: true,
      properties: {
        'shutdown.grace-period': '1s', 'internal-communication.shared-secret': 'held-tables-e2e-secret', 'security.config-file': rules,
        'vivace.distributed-tpch-min-rows': '0', 'vivace.distributed-lake-min-bytes': '1B', 'catalog.config-dir': catalogs,
      },
    });
    started.local = await createDuckDbEngine({ tempDirectory: join(dir, 'local'), threads: 1, tpch: { directory: SHARED_TPCH, log: () => {} } });
    ({ cluster, local } = started as TpchCluster);
    await until('two workers listen and are not failed', 60_000, () => healthy(cluster), 50);
    for (const sql of [`CREATE TABLE memory.default.prio AS ${PRIO}`, 'CREATE SCHEMA lake.s', LAKE_ITEMS]) {
      const created = await runStatement(cluster.url, sql, ALICE);
      expect(created.final.stats.state, `${sql}: ${JSON.stringify(created.final.error)}`).to.equal('FINISHED');
    }
  });
  after(() => stopTpchCluster(started));

  /** Runs `sql` as alice: its rows equal one task's over `reference`, its memory stage on worker-0 and its scan's on both workers. */
  const staged = async (sql: string, reference: string) => {
    const result = await runStatement(cluster.url, sql, ALICE);
    expect(result.final.stats.state, JSON.stringify(result.final.error)).to.equal('FINISHED');
    expectSameRows(result.rows, (await runOn(local, reference, session({}))).rows, 'the fragments vs one task');
    expect(result.rows).to.have.length(2);
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: ALICE });
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    const root = info.body.outputStage as StageJson;
    const nodesOf = (s: StageJson) => [...new Set((s.tasks ?? []).map((t) => t.taskStatus.nodeId))].sort();
    // The join planner's plan (held-relations.ts): the memory fragment broadcast into the scan's tasks, where
    // the join and the partial aggregation run, the final in a HASH stage; its memory stage the deepest.
    const all = (s: StageJson): StageJson[] => [s, ...s.subStages.flatMap(all)];
    const below = all(root).slice(1);
    expect(below.length).to.be.at.least(2);
    const pinned = below.find((s) => s.subStages.length === 0 && nodesOf(s).length === 1);
    const scan = below.find((s) => s.subStages.includes(pinned!));
    expect(nodesOf(pinned!)).to.deep.equal(['worker-0']);
    expect(nodesOf(scan!)).to.deep.equal([...cluster.workerUrls.keys()].sort());
    // Under another user's session the query (its stages, tasks and text) is not there to see.
    const other = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: BOB });
    expect(other.status).to.equal(403);
    const listed = await request('GET', `${cluster.url}/v1/query`, { headers: BOB });
    expect(listed.status).to.equal(200);
    expect((listed.body as { queryId: string }[]).map((q) => q.queryId)).to.not.include(result.final.id);
    for (const stage of [pinned!, scan!]) expect(stage.tasks?.every((t) => t.taskStatus.state === 'FINISHED'), `stage ${stage.stageId}`).to.equal(true);
  };

  it('answers as one task, in stages with tasks on both workers, the memory fragment on the memory worker', async () => {
    await staged(JOIN, JOIN.replace('memory.default.prio p', `(${PRIO}) AS p`));
  });

  it('does the same with a lake table, its partitions\' files split over both workers', async () => {
    const lake = `SELECT p.label, count(*) AS lines, sum(i.quantity) AS qty FROM lake.s.items i JOIN memory.default.prio p ON i.linenumber = p.n WHERE i.month < 7 GROUP BY p.label ORDER BY 1`;
    await staged(lake, `SELECT p.label, count(*) AS lines, sum(l.quantity) AS qty FROM tpch.tiny.lineitem l JOIN (${PRIO}) AS p ON l.linenumber = p.n WHERE month(l.shipdate) < 7 GROUP BY p.label ORDER BY 1`);
  });

  it('does the same when the statement names the memory table\'s columns unqualified, and a name both tables have fails as ambiguous', async () => {
    const unqualified = JOIN.replace(/\b[pl]\.(?=[a-z])/gu, '');
    expect(unqualified).to.not.match(/\b[pl]\./u);
    await staged(unqualified, JOIN.replace('memory.default.prio p', `(${PRIO}) AS p`));
    // The memory table's column quantity is lineitem's too: Trino's analyzer calls it ambiguous, as the root does on the memory worker.
    const created = await runStatement(cluster.url, 'CREATE TABLE memory.default.clash AS SELECT n, n AS quantity FROM (VALUES 1, 2) AS t(n)', ALICE);
    expect(created.final.stats.state, JSON.stringify(created.final.error)).to.equal('FINISHED');
    const ambiguous = await runStatement(cluster.url, 'SELECT n, sum(quantity) FROM memory.default.clash c JOIN tpch.tiny.lineitem l ON linenumber = n GROUP BY n', ALICE);
    expect(ambiguous.final.stats.state).to.equal('FAILED');
    expect(ambiguous.final.error).to.deep.include({ errorName: 'AMBIGUOUS_NAME', message: "line 1:15: Column 'quantity' is ambiguous" });
    expect(ambiguous.rows).to.deep.equal([]);
  });

  it('keeps INSERT ... SELECT over the join on one task, and refuses the memory table to a user the rules deny it, one task for a masked reader', async () => {
    const inserted = await runStatement(cluster.url, 'INSERT INTO memory.default.prio SELECT n + 4, label FROM memory.default.prio p JOIN tpch.tiny.region r ON r.regionkey = p.n', ALICE);
    expect(inserted.final.stats.state, JSON.stringify(inserted.final.error)).to.equal('FINISHED');
    expect(inserted.rows).to.deep.equal([[4]]);
    const denied = await runStatement(cluster.url, JOIN, BOB);
    expect(denied.final.stats.state).to.equal('FAILED');
    expect(denied.final.error.errorName).to.equal('PERMISSION_DENIED');
    expect(denied.rows).to.deep.equal([]);
    // A user who reads it through a column mask runs the query as one task, where the mask applies.
    const masked = await runStatement(cluster.url, JOIN, { 'X-Trino-User': 'carol' });
    expect(masked.final.stats.state, JSON.stringify(masked.final.error)).to.equal('FINISHED');
    expect(masked.rows.map((r) => r[0])).to.deep.equal(['masked']);
    expect((masked.final.stats.rootStage as StageJson).subStages).to.deep.equal([]);
  });
});

// The time of the query in a staged plan, on `vivace serve --workers 2` as real processes: every task reads
// the query's start (the session's, carried to each task), as Trino's tasks read the session's start, so a
// DISTINCT of now() over a table split across both workers is one row, equal to what the root reads, and
// the same statement run again reads its own start (no cached translation or plan serves another query's).
import { expect } from 'chai';
import { join } from 'node:path';
import { defaultConfig } from '../../lib/config.js';
import { request } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { finishedStatement, USER, withTpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');

interface StageNode { subStages: StageNode[]; tasks?: { taskStatus: { nodeId: string } }[] }
const flatten = (s: StageNode): StageNode[] => [s, ...s.subStages.flatMap(flatten)];

describe('e2e: the query\'s start read by every task of a staged plan on two worker processes', function () {
  this.timeout(240_000);
  const started = withTpchCluster(SHARED_TPCH, 'query-start-e2e-secret', 'vivace-e2e-query-start-');

  // Each leaf task reads now() and the others over its splits of lineitem; the root reads them again over the partial rows.
  const sql = 'SELECT DISTINCT now(), current_timestamp, current_date, localtimestamp, now() = (SELECT max(now()) FROM tpch.tiny.nation) FROM tpch.tiny.lineitem';

  async function run(): Promise<{ row: unknown[]; createTime: number }> {
    const { cluster } = started();
    const result = await finishedStatement(cluster, sql);
    expect(result.rows, 'one row: every task read the same instant').to.have.length(1);
    const info = await request('GET', `${cluster.url}/v1/query/${result.final.id as string}`, { headers: USER });
    validateResponse('query-info', info.body);
    const stages = flatten(info.body.outputStage as StageNode);
    expect(stages.length, 'stages').to.be.at.least(2);
    const nodes = new Set(stages.flatMap((s) => (s.tasks ?? []).map((t) => t.taskStatus.nodeId)));
    expect([...nodes].sort(), 'tasks on both workers').to.deep.equal([...cluster.workerUrls.keys()].sort());
    return { row: result.rows[0]!, createTime: Date.parse(info.body.queryStats.createTime as string) };
  }

  it('gives one row per query, the root\'s instant, near the query\'s create time; the same text again its own', async () => {
    const first = await run();
    const [now, current, date, local, same] = first.row as [string, string, string, string, boolean];
    expect(current).to.equal(now);
    expect(same).to.equal(true);
    // The coordinator's zone is UTC here: the local time and date are the instant's.
    expect(now.endsWith(' UTC')).to.equal(true);
    expect(local).to.equal(now.slice(0, -' UTC'.length));
    expect(date).to.equal(now.slice(0, 10));
    expect(Math.abs(Date.parse(`${local.replace(' ', 'T')}Z`) - first.createTime)).to.be.below(1000);
    const second = await run();
    expect(second.row[0]).to.not.equal(now);
    expect(Math.abs(Date.parse(`${(second.row[3] as string).replace(' ', 'T')}Z`) - second.createTime)).to.be.below(1000);
  });
});

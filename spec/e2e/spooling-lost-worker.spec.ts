// The spooling protocol when the worker holding a query's segments dies (`vivace serve --workers 2`, the
// worker killed with SIGKILL after the query finished): a client downloading a segment from it gets an
// error it can report, the query info names the lost worker in a warning, the coordinator's
// /v1/spooled paths (COORDINATOR_PROXY) answer 410 with the error's JSON, and the coordinator stays up.
import { expect } from 'chai';
import { join } from 'node:path';
import { until } from '../../bench/cluster-process.js';
import { workerPids } from '../../bench/process-cpu.js';
import { defaultConfig } from '../../lib/config.js';
import { ClientSession } from '../../lib/client/client-session.js';
import { StatementClient } from '../../lib/client/statement-client.js';
import { request, validateStatement } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';
import { runWithoutDownloads, SPOOLED_SEQUENCE } from './spooled-statements.js';
import { finishedStatement, healthy, USER, withTpchCluster } from './cluster-nodes.js';

const SHARED_TPCH = join(defaultConfig().dataDirectory, 'tpch');
const SECRET = 'spooling-lost-worker-e2e';

describe('e2e: spooled segments of a worker that died', function () {
  this.timeout(180_000);
  const started = withTpchCluster(SHARED_TPCH, SECRET, 'vivace-e2e-spool-lost-');

  it('the download fails with a reportable error, the query info names the lost worker, the coordinator answers 410 for its segments and stays up', async () => {
    const { cluster } = started();
    const query = await runWithoutDownloads(cluster.url, SPOOLED_SEQUENCE);
    expect(query.state).to.equal('FINISHED');
    const spooled = query.segments.filter((s) => s.type === 'spooled');
    expect(spooled.length).to.be.greaterThan(0);
    const holder = [...cluster.workerUrls].find(([, url]) => spooled[0].uri.startsWith(`${url}/v1/spooled/download/`));
    expect(holder, spooled[0].uri).to.not.equal(undefined);
    const [nodeId, workerUrl] = holder!;
    for (const s of spooled) expect(s.uri.startsWith(`${workerUrl}/`)).to.equal(true);
    const id: string = spooled[0].uri.slice(spooled[0].uri.lastIndexOf('/') + 1);

    process.kill(workerPids(cluster.pid).get(nodeId)!, 'SIGKILL');

    // STORAGE: the client reaches the dead worker itself and says what failed, and where.
    const client = new StatementClient({ server: cluster.url, session: new ClientSession({ user: 'alice' }) });
    const failure = await client.segmentFetcher(new AbortController().signal).download(spooled[0].uri).then(() => undefined, (err: unknown) => err);
    expect(String(failure)).to.match(/Error downloading a segment: .*\(http:\/\/127\.0\.0\.1:\d+\)/);

    // Once the coordinator sees the worker gone (failed, or replaced by its restart), the query info says so.
    const info = await until('a warning about the lost segments', 60_000, async () => {
      const res = await request('GET', `${cluster.url}/v1/query/${query.id}`, { headers: USER });
      return res.status === 200 && res.body.warnings.length > 0 ? res.body : undefined;
    }, 50);
    validateResponse('query-info', info);
    expect(info.state).to.equal('FINISHED');
    expect(info.warnings).to.deep.equal([
      { warningCode: { code: 1002, name: 'SPOOLED_SEGMENTS_LOST' }, message: `Worker ${nodeId} is gone, and with it the spooled segments of this query it held: downloading one of them fails` },
    ]);

    // COORDINATOR_PROXY: a clear status and the error's JSON, for download and ack alike.
    for (const path of ['download', 'ack']) {
      const res = await request('GET', `${cluster.url}/v1/spooled/${path}/${id}`);
      expect(res.status, path).to.equal(410);
      validateResponse('error', res.body);
      expect(res.body).to.include({ errorName: 'REMOTE_HOST_GONE', message: `Worker ${nodeId}, which held this segment of query ${query.id}, is gone: the segment is lost` });
    }

    // The coordinator stays up: with the worker back, queries run and spool again.
    await until('the worker restarted and healthy', 60_000, () => healthy(cluster), 50);
    const after = await finishedStatement(cluster, 'SELECT count(*) FROM tpch.tiny.nation');
    expect(after.rows).to.deep.equal([[25]]);
  });

  it('a scattered scan (its segments on both workers): the dead worker\'s segments are lost and named, the other worker\'s still download', async () => {
    const { cluster } = started();
    const query = await runWithoutDownloads(cluster.url, 'SELECT * FROM tpch.tiny.lineitem');
    expect(query.state).to.equal('FINISHED');
    const spooled = query.segments.filter((s) => s.type === 'spooled');
    const holderOf = (segment: any) => [...cluster.workerUrls].find(([, url]) => segment.uri.startsWith(`${url}/v1/spooled/download/`))![0];
    const holders = new Set(spooled.map(holderOf));
    expect(holders.size, 'segments on both workers').to.equal(2);
    const [dead, alive] = [...holders];
    process.kill(workerPids(cluster.pid).get(dead!)!, 'SIGKILL');
    const info = await until('a warning about the lost segments', 60_000, async () => {
      const res = await request('GET', `${cluster.url}/v1/query/${query.id}`, { headers: USER });
      return res.status === 200 && res.body.warnings.length > 0 ? res.body : undefined;
    }, 50);
    validateResponse('query-info', info);
    expect(info.warnings.map((w: any) => w.message)).to.deep.equal([`Worker ${dead} is gone, and with it the spooled segments of this query it held: downloading one of them fails`]);
    for (const segment of spooled) {
      if (holderOf(segment) === alive) expect((await fetch(segment.uri)).status, segment.uri).to.equal(200);
      else expect(await fetch(segment.uri).then((res) => res.status, () => 'refused')).to.not.equal(200);
    }
    await until('the worker restarted and healthy', 60_000, () => healthy(cluster), 50);
  });

  it('a query still producing its rows on the worker that died fails, saying which worker', async () => {
    const { cluster } = started();
    // About 40 MB of JSON: segments of 8 MB, more than the coordinator reads ahead.
    const sql = "SELECT a.x * 10000 + b.y AS x, concat('a longer value to spool for row ', CAST(a.x * 10000 + b.y AS varchar)) AS s FROM UNNEST(sequence(0, 99)) AS a(x) CROSS JOIN UNNEST(sequence(1, 10000)) AS b(y)";
    const first = await request('POST', `${cluster.url}/v1/statement`, { body: sql, headers: { ...USER, 'X-Trino-Query-Data-Encoding': 'json' } });
    let current = first.body;
    let segment: any;
    while (!segment && current.nextUri) {
      current = (await request('GET', current.nextUri)).body;
      segment = current.data?.segments?.find((s: any) => s.type === 'spooled');
    }
    expect(segment, `a spooled segment before the end: ${JSON.stringify(current.error)}`).to.not.equal(undefined);
    const [nodeId] = [...cluster.workerUrls].find(([, url]) => segment.uri.startsWith(`${url}/`))!;
    process.kill(workerPids(cluster.pid).get(nodeId)!, 'SIGKILL');
    while (current.nextUri) {
      const next = await request('GET', current.nextUri);
      validateStatement(next.body, false);
      current = next.body;
    }
    expect(current.stats.state).to.equal('FAILED');
    expect(current.error.message).to.include(nodeId);
    await until('the worker restarted and healthy', 60_000, () => healthy(cluster), 50);
  });
});

// The spooling protocol when the worker holding a query's segments is killed and started again on the same
// address, with the same node id (`vivace worker --port P`, a real process, SIGKILL): its spool went with the
// old process. The coordinator tells the processes apart by the announcement's instance (the service id
// each process announces afresh), so the query info names the lost worker, the new process answers the old
// segment 404 in the error's shape, the coordinator's /v1/spooled paths answer 410, and it stays up.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClusterProcess, until, type ClusterProcess } from '../../bench/cluster-process.js';
import { request } from '../support/http.js';
import { startWorkerProcess, type StartedWorker } from '../support/worker-process.js';
import { validateResponse } from '../support/schema-validator.js';
import { runWithoutDownloads, SPOOLED_SEQUENCE } from './spooled-statements.js';
import { USER } from './cluster-nodes.js';

const SECRET = 'spooling-restarted-worker-e2e';

/** The worker at `url` is in /v1/node and not in /v1/node/failed. */
async function listedAlive(cluster: ClusterProcess, url: string): Promise<boolean> {
  const [all, failed] = await Promise.all(['/v1/node', '/v1/node/failed'].map((p) => request('GET', `${cluster.url}${p}`, { headers: USER })));
  return all!.body.some((n: { uri: string }) => n.uri === `${url}/v1/status`) && !failed!.body.some((n: { uri: string }) => n.uri === `${url}/v1/status`);
}

describe('e2e: spooled segments of a worker restarted on the same address', function () {
  this.timeout(180_000);
  let dir: string;
  let cluster: ClusterProcess | undefined;
  const workers: StartedWorker[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-e2e-spool-restart-'));
    cluster = await startClusterProcess({ workers: 0, properties: { 'shutdown.grace-period': '1s', 'internal-communication.shared-secret': SECRET }, captureOutput: true });
  });

  after(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the new process answers 404 in the error shape, the query info names the lost worker, the coordinator answers 410 and stays up', async () => {
    const config = join(dir, 'worker.properties');
    writeFileSync(config, `internal-communication.shared-secret=${SECRET}\ndata.directory=${join(dir, 'data')}\nshutdown.grace-period=1s\n`);
    const args = (port: string) => ['--coordinator', cluster!.url, '--port', port, '--data-dir', join(dir, 'worker'), '--config', config];
    const first = await startWorkerProcess(args('0'));
    workers.push(first);
    await until('the worker announced and not failed', 60_000, () => listedAlive(cluster!, first.url), 50);

    const query = await runWithoutDownloads(cluster!.url, SPOOLED_SEQUENCE);
    expect(query.state).to.equal('FINISHED');
    const spooled = query.segments.filter((s) => s.type === 'spooled');
    expect(spooled.length).to.be.greaterThan(0);
    for (const s of spooled) expect(s.uri.startsWith(`${first.url}/v1/spooled/download/`), s.uri).to.equal(true);
    const id: string = spooled[0].uri.slice(spooled[0].uri.lastIndexOf('/') + 1);

    // Killed and started again at once on its port, with its node id: the failure detector may never see it gone.
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startWorkerProcess(args(new URL(first.url).port));
    workers.push(second);
    expect(second.url).to.equal(first.url);
    expect(second.nodeId).to.equal(first.nodeId);

    // The coordinator tells the new process from the old one by its announcement: the query info says so.
    const info = await until('a warning about the lost segments', 60_000, async () => {
      const res = await request('GET', `${cluster!.url}/v1/query/${query.id}`, { headers: USER });
      return res.status === 200 && res.body.warnings.length > 0 ? res.body : undefined;
    }, 50);
    validateResponse('query-info', info);
    expect(info.warnings).to.deep.equal([
      { warningCode: { code: 1002, name: 'SPOOLED_SEGMENTS_LOST' }, message: `Worker ${first.nodeId} is gone, and with it the spooled segments of this query it held: downloading one of them fails` },
    ]);

    // STORAGE: the client reaches the new process, which does not have the segment: 404, Trino's shape.
    const direct = await request('GET', spooled[0].uri);
    expect(direct.status).to.equal(404);
    validateResponse('error', direct.body);
    expect(direct.body).to.include({ errorName: 'NOT_FOUND', message: 'Segment not found or expired' });

    // COORDINATOR_PROXY: 410 and the error's JSON naming the lost worker, for download and ack alike.
    for (const path of ['download', 'ack']) {
      const res = await request('GET', `${cluster!.url}/v1/spooled/${path}/${id}`);
      expect(res.status, path).to.equal(410);
      validateResponse('error', res.body);
      expect(res.body).to.include({ errorName: 'REMOTE_HOST_GONE', message: `Worker ${first.nodeId}, which held this segment of query ${query.id}, is gone: the segment is lost` });
    }

    // The coordinator stays up, and the new process spools and serves the next query's segments.
    await until('the restarted worker not failed', 60_000, () => listedAlive(cluster!, second.url), 50);
    const again = await runWithoutDownloads(cluster!.url, SPOOLED_SEQUENCE);
    expect(again.state).to.equal('FINISHED');
    const fresh = again.segments.find((s) => s.type === 'spooled');
    const download = await fetch(fresh.uri);
    expect(download.status).to.equal(200);
    expect((await download.arrayBuffer()).byteLength).to.equal(fresh.metadata.segmentSize);
    const warnings = (await request('GET', `${cluster!.url}/v1/query/${again.id}`, { headers: USER })).body.warnings;
    expect(warnings).to.deep.equal([]);
  });
});

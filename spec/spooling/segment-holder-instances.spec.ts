// Segment holders are worker processes, not addresses: a worker restarted on its address with its node id
// announces another instance (discovery.ts DiscoveredNode.instance), and the RemoteEngine counts the
// segments of the process before it as lost, though the failure detector never saw the node fail (a real
// worker over real HTTP; the restart is the announced instance changing).
import { expect } from 'chai';
import { Discovery } from '../../lib/cluster/discovery.js';
import { clusterWorkers } from '../../lib/cluster/remote-engine.js';
import { workerInstanceKey } from '../../lib/spooling/segment-holders.js';
import { remoteEngine, runOn, session, startTestWorker, type TestWorker } from '../cluster/cluster-harness.js';

describe('spooled segment holders by worker instance', function () {
  this.timeout(60_000);
  let w0: TestWorker;
  before(async () => {
    w0 = await startTestWorker('w0', { memory: true });
  });
  after(() => w0.stop());

  it('workerInstanceKey tells two processes at one address apart, and keeps the old key without an instance', () => {
    expect(workerInstanceKey({ nodeId: 'w0', uri: 'http://h:1' })).to.equal('w0@http://h:1');
    expect(workerInstanceKey({ nodeId: 'w0', uri: 'http://h:1', instance: 'a' })).to.not.equal(workerInstanceKey({ nodeId: 'w0', uri: 'http://h:1', instance: 'b' }));
  });

  it('discovery keeps the announced service id as the instance, and clusterWorkers hands it on', async () => {
    const discovery = new Discovery({ nodes: { announceNode: () => {}, forgetNode: () => {} }, environment: 'spec', sweepIntervalMs: 0 });
    const announce = (id: string) =>
      discovery.announce('w0', JSON.stringify({ environment: 'spec', services: [{ id, type: 'trino', properties: { http: 'http://127.0.0.1:9' } }] }), undefined);
    await announce('first');
    let t = 0;
    const workers = clusterWorkers(() => discovery.list(), () => [{ nodeId: 'w0', failed: false }], () => t);
    expect(workers()).to.deep.equal([{ nodeId: 'w0', uri: 'http://127.0.0.1:9', memory: false, alive: true, instance: 'first' }]);
    await announce('second');
    t += 1000;
    expect(workers()[0]!.instance).to.equal('second');
    discovery.stop();
  });

  it('a worker alive throughout but announcing another instance: the queries its old process held segments of are told lost', async () => {
    let instance = 'first';
    const lost: [string, string][] = [];
    let told: () => void = () => {};
    const toldOnce = new Promise<void>((resolve) => (told = resolve));
    const engine = remoteEngine(() => [{ nodeId: 'w0', uri: w0.url, memory: true, alive: true, instance }], {
      watchIntervalMs: 5,
      onSpooledSegmentsLost: (queryId, nodeId) => {
        lost.push([queryId, nodeId]);
        told();
      },
    });
    try {
      // A statement makes the engine's client of the first process; a query's segments were handed out from it.
      expect((await runOn(engine, 'SELECT 1', session())).rows).to.deep.equal([[1]]);
      engine.segmentHolders.note('q1', workerInstanceKey({ nodeId: 'w0', uri: w0.url, instance: 'first' }));
      expect(lost).to.deep.equal([]);
      instance = 'second';
      await toldOnce;
      expect(lost).to.deep.equal([['q1', 'w0']]);
      expect(engine.segmentHolders.size).to.equal(0);
      // The new process serves statements as before.
      expect((await runOn(engine, 'SELECT 2', session())).rows).to.deep.equal([[2]]);
    } finally {
      await engine.close();
    }
  });
});

// A worker's system tables serve whatever rows a task brings, typed field by field: odd rows become nulls
// or zeros, never an engine error or a crash (fast-check over any JSON objects, then real scans).
import { expect } from 'chai';
import fc from 'fast-check';
import { SystemSnapshots } from '../../lib/worker/system-snapshot.js';
import { call, planTask, results, rowsOf, startTestWorker, type TestWorker } from './worker-support.js';

const anyRows = fc.array(fc.dictionary(fc.constantFrom('nodeId', 'httpUri', 'coordinator', 'state', 'queryId', 'user', 'query', 'created', 'started', 'end', 'resourceGroupId', 'splits', 'taskId', 'rawInputRows', 'outputRows', 'x'), fc.jsonValue()), { maxLength: 5 });

describe('worker system snapshots', () => {
  it('types every field of any rows it is sent', () => {
    fc.assert(
      fc.property(anyRows, anyRows, anyRows, (nodes, queries, tasks) => {
        const snapshots = new SystemSnapshots();
        snapshots.accept({ nodes, queries, tasks }, 'alice');
        for (const row of snapshots.nodes()) {
          expect(row.nodeId).to.be.a('string');
          expect(row.coordinator).to.be.a('boolean');
        }
        for (const row of snapshots.queries('alice')) {
          expect(row.created).to.be.a('number');
          expect(row.resourceGroupId === null || row.resourceGroupId.every((g) => typeof g === 'string')).to.equal(true);
        }
        for (const row of snapshots.tasks()) {
          expect(row.splits).to.be.a('number');
          expect(row.outputRows === null || typeof row.outputRows === 'number').to.equal(true);
        }
        expect(snapshots.queries('bob')).to.deep.equal([]);
        expect(snapshots.queries()).to.deep.equal([]);
      }),
      { numRuns: 300 },
    );
  });

  describe('scanned by a real worker', () => {
    let w: TestWorker;
    before(async () => {
      w = await startTestWorker();
    });
    after(async () => w.stop());

    it('reads extreme numbers as nulls or values DuckDB holds, and keeps working', async () => {
      const extreme = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, Number.MAX_SAFE_INTEGER, -1, 0.5];
      let i = 0;
      for (const value of extreme) {
        const system = {
          queries: [{ queryId: 'q', state: 'RUNNING', user: 'alice', query: 'x', created: value, started: value, end: value, queuedTimeMs: value, analysisTimeMs: value, planningTimeMs: value }],
          tasks: [{ taskId: 't', splits: value, created: value, outputRows: value }],
        };
        for (const table of ['queries', 'tasks']) {
          const taskId = `sys-${i++}`;
          const plan = await planTask(w.url, taskId, `SELECT * FROM system.runtime.${table}`, { execute: true, system });
          expect(plan.status, `${table} ${value}`).to.equal(200);
          const page = await results(w.url, taskId, 0);
          expect(page.status, `${table} ${value}: ${page.text}`).to.equal(200);
          expect(rowsOf(page)).to.have.length(1);
        }
      }
      expect((await call('GET', `${w.url}/v1/status`)).status).to.equal(200);
      await planTask(w.url, 'sys-after', 'SELECT 1', { execute: true });
      expect(rowsOf(await results(w.url, 'sys-after', 0))).to.deep.equal([[1]]);
    });
  });
});
